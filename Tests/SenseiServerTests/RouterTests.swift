import Testing
@testable import SenseiServer

/// The route table on its own: how paths are cut and matched.
@Suite("Router")
struct RouterTests {
    private let router: Router = {
        var router = Router()
        for (method, pattern) in [("GET", "/health"), ("GET", "/sensors"), ("POST", "/sensors"),
                                  ("GET", "/sensors/:id"), ("PATCH", "/sensors/:id"),
                                  ("GET", "/sensors/:id/data"), ("POST", "/sensors/:id/data"),
                                  ("GET", "/"), ("GET", "/a/:x/b/:y")] {
            router.add(method, pattern, scope: nil) { _, _ in Response(status: 200) }
        }
        return router
    }()

    /// The pattern and parameters a path finds, or how it fails.
    private func outcome(_ method: String, _ path: String) -> String {
        switch router.match(method: method, path: path) {
        case .found(let route, let parameters):
            let names = ["id", "x", "y"].filter { !parameters[$0].isEmpty }
            return ([route.pattern] + names.map { "\($0)=\(parameters[$0])" }).joined(separator: " ")
        case .methodNotAllowed(let allowed): return "405 " + allowed.joined(separator: ",")
        case .notFound: return "404"
        }
    }

    @Test(arguments: [
        ("/sensors", "/sensors"),
        ("/sensors/", "/sensors"),
        ("sensors", "/sensors"),
        ("/sensors/42", "/sensors/:id id=42"),
        ("/sensors/temp_ext/data", "/sensors/:id/data id=temp_ext"),
        ("/sensors/temp_ext/data/", "/sensors/:id/data id=temp_ext"),
        ("/sensors/°C/data", "/sensors/:id/data id=°C"),
        ("/a/1/b/2", "/a/:x/b/:y x=1 y=2"),
        ("/", "/"), ("", "/"), ("//", "/"),
        ("/sensors//data", "/sensors/:id/data"),  // an empty id: the handler says no such sensor
        ("/sensors/1/data//", "404"),
        ("/sensors/1/data/extra", "404"),
        ("/a/1/c/2", "404"),
        ("/healthz", "404"),
    ])
    func pathsFindTheirRoute(path: String, expected: String) {
        #expect(outcome("GET", path) == expected)
    }

    @Test func headIsGetAndOtherMethodsListWhatWorks() {
        #expect(outcome("HEAD", "/sensors/7") == "/sensors/:id id=7")
        #expect(outcome("DELETE", "/sensors") == "405 GET,POST")
        #expect(outcome("PUT", "/sensors/7/data") == "405 GET,POST")
        #expect(outcome("POST", "/sensors/7") == "405 GET,PATCH")
    }
}
