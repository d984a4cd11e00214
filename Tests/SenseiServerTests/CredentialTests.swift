import Foundation
import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

/// The token forms InfluxDB clients send, on a real server: `Token`,
/// `Bearer`, Basic auth with the token as password, and `p=` in the query.
@Suite("Credentials")
struct CredentialTests {
    static func basic(_ user: String, _ password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    @Test func everyFormGrantsTheTokensScope() async throws {
        try await withTestServer { server in
            let read = server.reader.token!
            let write = server.writer.token!
            for header in ["Bearer \(read)", "Token \(read)", "token  \(read) ", Self.basic("telegraf", read),
                           Self.basic("", read)] {
                let response = try await server.anonymous.request("GET", "/sensors", headers: ["Authorization": header])
                #expect(response.status == 200, "\(header)")
            }
            #expect(try await server.anonymous.get("/sensors?u=anyone&p=\(read)").status == 200)
            // The scope is the token's, whatever the form.
            let post = try await server.anonymous.request("POST", "/sensors/t/data", body: Array(#"{"value":1}"#.utf8),
                                                    headers: ["Authorization": "Token \(read)"])
            #expect(post.status == 403)
            let written = try await server.anonymous.request("POST", "/sensors/t/data?p=\(write)", body: Array(#"{"value":1}"#.utf8))
            #expect(written.status == 201)
            // A header wins over the query; an unknown header scheme is no credential.
            let both = try await server.anonymous.request("GET", "/sensors?p=\(read)", headers: ["Authorization": "Token wrong"])
            #expect(both.status == 401)
            #expect(try await server.anonymous.request("GET", "/sensors", headers: ["Authorization": "Digest \(read)"]).status == 401)
        }
    }

    @Test(arguments: ["Token", "Token ", "Basic", "Basic !!!", CredentialTests.basic("u", ""),
                      CredentialTests.basic("u", "wrong"), "Basic " + Data("no-colon".utf8).base64EncodedString()])
    func badCredentialsAre401WithBearerChallenge(header: String) async throws {
        try await withTestServer { server in
            let response = try await server.anonymous.request("GET", "/sensors", headers: ["Authorization": header])
            #expect(response.status == 401)
            #expect(response.headers["www-authenticate"] == "Bearer")
            #expect(response.errorMessage == "unauthorized")
        }
    }

    /// A token in the query string or in Basic auth reaches no log line, no
    /// metric and no error body, whether it is known or not.
    @Test func queryAndBasicTokensAreNeverShown() async throws {
        try await withTestServer { server in
            let valid = server.writer.token!
            let secrets = [valid, "secret-in-query-123", "secret-in-basic-456"]
            var bodies: [String] = []
            for path in ["/sensors?p=\(valid)", "/sensors?p=secret-in-query-123", "/nope?p=\(valid)",
                         "/sensors/bad%20code?p=\(valid)", "/sensors/missing?u=x&p=\(valid)"] {
                bodies.append(try await server.anonymous.get(path).text)
            }
            bodies.append(try await server.anonymous.request("POST", "/sensors/t/data?p=\(valid)", body: Array("{".utf8)).text)
            bodies.append(try await server.anonymous.request("GET", "/sensors",
                                                       headers: ["Authorization": Self.basic("u", "secret-in-basic-456")]).text)
            bodies.append(try await server.anonymous.request("DELETE", "/sensors/t",
                                                       headers: ["Authorization": Self.basic("u", valid)]).text)
            bodies.append(try await server.reader.get("/metrics").text)
            let logged = server.logs.entries.map { "\($0.message) \($0.metadata)" }.joined(separator: "\n")
            #expect(logged.contains("GET /sensors 200") && logged.contains("GET /sensors 401"))
            for secret in secrets {
                #expect(!logged.contains(secret), "log shows \(secret)")
                for body in bodies { #expect(!body.contains(secret), "body shows \(secret): \(body.prefix(200))") }
            }
        }
    }

    @Test(arguments: [
        ("Token abc", "abc"), ("TOKEN abc", "abc"), ("Bearer abc", "abc"), ("Tokenabc", nil), ("Token", nil),
        ("Basic dTphYmM=", "abc"), ("Basic OmFiYw==", "abc"), ("basic dTphOmI=", "a:b"), ("Basic dTo=", nil),
        ("Basic %%%", nil), ("Digest abc", nil),
    ] as [(String, String?)])
    func headerForms(header: String, token: String?) {
        #expect(Credential.token(in: Request(method: "GET", path: "/", authorization: header)) == token)
    }

    @Test func queryFormOnlyWithoutHeader() {
        #expect(Credential.token(in: Request(method: "GET", path: "/", query: ["p": "abc"])) == "abc")
        #expect(Credential.token(in: Request(method: "GET", path: "/", query: ["p": ""])) == nil)
        #expect(Credential.token(in: Request(method: "GET", path: "/", query: ["p": "abc"], authorization: "Token x")) == "x")
    }
}
