import Foundation
import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

@Suite("Authentication and scopes")
struct AuthTests {
    /// Every route of the API with a request that reaches its handler, and
    /// the scope it needs. A new route must be added here.
    static let routes: [(method: String, path: String, body: String?, needs: Scope)] = [
        ("GET", "/sensors", nil, .read),
        ("POST", "/sensors", #"{"code":"made_by_test"}"#, .admin),
        ("GET", "/sensors/first", nil, .read),
        ("PATCH", "/sensors/first", #"{"name":"Renamed"}"#, .admin),
        ("DELETE", "/sensors/second", nil, .admin),
        ("GET", "/sensors/first/data", nil, .read),
        ("GET", "/sensors/first/data.csv", nil, .read),
        ("GET", "/sensors/first/aggregates?level=hour", nil, .read),
        ("GET", "/sensors/first/usage?interval=day", nil, .read),
        ("GET", "/readings", nil, .read),
        ("GET", "/aggregates?level=minute", nil, .read),
        ("POST", "/sensors/first/data", #"{"value":1}"#, .write),
        ("POST", "/sensor_data", #"{"sensor_code":"first","value":"1"}"#, .write),
        ("GET", "/sensor_data/first", nil, .read),
        ("GET", "/metrics", nil, .read),
        // A stream ends only when asked to: after a second here.
        ("GET", "/stream?timeout=1", nil, .read),
        // `:rule` is a rule made for each request (below).
        ("GET", "/alerts", nil, .read),
        ("POST", "/alerts", #"{"name":"n","sensor":"first","condition":"above","threshold":5,"notify":["http://127.0.0.1:9/x"]}"#, .admin),
        ("GET", "/alerts/:rule", nil, .read),
        ("PATCH", "/alerts/:rule", #"{"name":"Renamed"}"#, .admin),
        ("DELETE", "/alerts/:rule", nil, .admin),
        ("POST", "/write?db=d", "m v=1", .write),
        ("POST", "/api/v2/write?bucket=b", "m v=1", .write),
        ("GET", "/query?q=SHOW%20DATABASES", nil, .read),
        ("POST", "/query?q=SHOW%20DATABASES", nil, .read),
    ]

    @Test func everyRouteIsCoveredByTheTable() async throws {
        let table = Set(Self.routes.map { "\($0.method) \(Self.withoutQuery($0.path))" })
        let router = try await withTestServer { server in
            SenseiApplication.routes(store: server.storage, metrics: server.application.metrics,
                                     streams: server.application.streams, alerts: server.application.alerts,
                                     link: server.application.link)
        }
        #expect(router.routes.count == Self.routes.count + 2)  // + GET /health and GET /ping, open to all
        for route in router.routes where route.pattern != "/health" && route.pattern != "/ping" {
            let concrete = route.pattern.replacingOccurrences(of: ":id", with: route.method == "DELETE" ? "second" : "first")
                .replacingOccurrences(of: ":code", with: "first")
            #expect(table.contains("\(route.method) \(concrete)"), "\(route.method) \(route.pattern)")
            #expect(route.scope == Self.routes.first { $0.method == route.method && Self.withoutQuery($0.path) == concrete }?.needs)
        }
    }

    private static func withoutQuery(_ path: String) -> String {
        String(path.prefix { $0 != "?" })
    }

    @Test(arguments: [Scope?.none, .read, .write, .admin])
    func scopesAreEnforcedOnEveryRoute(scope: Scope?) async throws {
        try await withTestServer { server in
            for route in Self.routes {
                // Fresh sensors for each request.
                let store = server.storage
                _ = try? store.deleteSensor(.code("first"))
                _ = try? store.deleteSensor(.code("second"))
                try await store.insertCommitted([ReadingInput(timestamp: nil, value: 1)], into: .code("first"), createIfMissing: true)
                try await store.insertCommitted([ReadingInput(timestamp: nil, value: 2)], into: .code("second"), createIfMissing: true)
                _ = try? store.deleteSensor(.code("made_by_test"))
                let first = try #require(try store.sensor(.code("first")))
                let rule = try store.createAlert(AlertRule(
                    name: "r", sensorID: first.id, condition: .above, threshold: 5, notify: ["http://127.0.0.1:9/x"]),
                    at: .now())
                let path = route.path.replacingOccurrences(of: ":rule", with: "\(rule.id)")

                let client = switch scope {
                case nil: server.anonymous
                case .read?: server.reader
                case .write?: server.writer
                case .admin?: server.admin
                }
                let response = try await client.request(
                    route.method, path, body: route.body.map { Array($0.utf8) },
                    contentType: route.body == nil ? nil : "application/json")
                let label = "\(scope?.rawValue ?? "none") \(route.method) \(route.path)"
                guard let scope else {
                    #expect(response.status == 401, "\(label)")
                    #expect(response.headers["www-authenticate"] == "Bearer", "\(label)")
                    #expect(response.text == #"{"error":"unauthorized"}"#, "\(label)")
                    continue
                }
                if scope.allows(route.needs) {
                    #expect([200, 201, 204].contains(response.status), "\(label): \(response.status) \(response.text)")
                } else {
                    #expect(response.status == 403, "\(label)")
                    #expect(response.errorMessage?.contains("needs \(route.needs.rawValue)") == true, "\(label)")
                }
            }
        }
    }

    @Test(arguments: ["", "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Bearer not-a-token", "bearer x y"])
    func badAuthorizationIs401(header: String) async throws {
        try await withTestServer { server in
            let response = try await server.anonymous.request("GET", "/sensors", headers: ["Authorization": header])
            #expect(response.status == 401)
            #expect(response.headers["www-authenticate"] == "Bearer")
        }
    }

    @Test func schemeIsCaseInsensitive() async throws {
        try await withTestServer { server in
            let token = server.reader.token!
            let response = try await server.anonymous.request("GET", "/sensors", headers: ["Authorization": "bearer  \(token) "])
            #expect(response.status == 200)
        }
    }

    @Test func revokedTokenFailsAtOnce() async throws {
        try await withTestServer { server in
            let secret = try server.storage.createToken(name: "phone", scope: .read, at: .now())
            let phone = TestHTTPClient(port: server.port, token: secret)
            #expect(try await phone.get("/sensors").status == 200)
            #expect(try server.storage.revokeToken(name: "phone"))
            #expect(try await phone.get("/sensors").status == 401)
        }
    }

    @Test(.sqliteOnly) func tokensAreStoredAsDigestsOnly() async throws {
        try await withTestServer { server in
            let secret = try server.store.createToken(name: "esp32", scope: .write)
            #expect(secret.hasPrefix("sensei_"))
            #expect(secret.count == 39)
            let file = try Data(contentsOf: URL(fileURLWithPath: server.store.path))
            let wal = (try? Data(contentsOf: URL(fileURLWithPath: server.store.path + "-wal"))) ?? Data()
            #expect(file.range(of: Data(secret.utf8)) == nil)
            #expect(wal.range(of: Data(secret.utf8)) == nil)
            #expect(wal.range(of: Data(TokenSecret.digest(of: secret))) != nil
                    || file.range(of: Data(TokenSecret.digest(of: secret))) != nil)
        }
    }

    @Test func presharedTokenIsAdmin() async throws {
        try await withTestServer(configure: { $0.presharedToken = "from-the-environment" }) { server async throws in
            let client = TestHTTPClient(port: server.port, token: "from-the-environment")
            #expect(try await client.post("/sensors", json: #"{"code":"x"}"#).status == 201)
            #expect(try await client.delete("/sensors/x").status == 204)
            let wrong = TestHTTPClient(port: server.port, token: "from-the-environmenT")
            #expect(try await wrong.get("/sensors").status == 401)
        }
    }

    /// Last use joins the next group commit rather than making the request
    /// wait for a sync of its own: it is there shortly after the answer.
    @Test func lastUseIsRecorded() async throws {
        try await withTestServer { server in
            #expect(try server.storage.tokens().first { $0.name == "test-read" }?.lastUsedAt == nil)
            _ = try await server.reader.get("/sensors")
            try await waitUntil(seconds: 10, every: .milliseconds(2)) {
                try server.storage.tokens().first(where: { $0.name == "test-read" })?.lastUsedAt != nil
            }
            let used = try #require(try server.storage.tokens().first { $0.name == "test-read" }?.lastUsedAt)
            #expect(abs(used.milliseconds - Timestamp.now().milliseconds) < 10_000)
        }
    }

    @Test func tokensNeverAppearInLogs() async throws {
        try await withTestServer { server in
            _ = try await server.reader.get("/sensors")
            _ = try await server.writer.post("/sensors/t/data", json: #"{"value":1}"#)
            _ = try await server.anonymous.request("GET", "/sensors", headers: ["Authorization": "Bearer wrong-secret-123"])
            let logged = server.logs.entries.map { "\($0.message) \($0.metadata)" }.joined(separator: "\n")
            #expect(logged.contains("GET /sensors 200"))
            #expect(logged.contains("POST /sensors/t/data 201"))
            #expect(logged.contains("GET /sensors 401"))
            for secret in [server.reader.token!, server.writer.token!, "wrong-secret-123"] {
                #expect(!logged.contains(secret))
            }
        }
    }

    @Test func firstStartWithoutTokensWritesAnOwnerOnlyTokenFile() async throws {
        try await withTemporaryDirectory { directory in
            var configuration = SenseiApplication.Configuration()
            configuration.dataDirectory = directory + "/data"
            configuration.http.host = "127.0.0.1"
            configuration.http.port = 0
            let application = try SenseiApplication(configuration: configuration, logger: .init(label: "test"))
            try application.start()
            try await withCleanup {
                let path = configuration.tokenFilePath
                let attributes = try FileManager.default.attributesOfItem(atPath: path)
                #expect((attributes[.posixPermissions] as? Int) == 0o600)
                let directoryAttributes = try FileManager.default.attributesOfItem(atPath: configuration.dataDirectory)
                #expect((directoryAttributes[.posixPermissions] as? Int) == 0o700)
                let secret = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
                let tokens = try application.tokens.tokens()
                #expect(tokens.count == 1)
                #expect(tokens.first?.scope == .admin)
                let client = TestHTTPClient(port: application.port, token: secret)
                #expect(try await client.post("/sensors", json: #"{"code":"x"}"#).status == 201)
                #expect(try await TestHTTPClient(port: application.port, token: nil).get("/sensors").status == 401)
            } cleanup: {
                await application.shutdown()
            }
        }
    }

    @Test func noTokenFileWhenTokensExistOrPreshared() async throws {
        try await withTestServer(configure: { $0.presharedToken = "abc" }) { server in
            #expect(!FileManager.default.fileExists(atPath: server.application.configuration.tokenFilePath))
        }
    }
}
