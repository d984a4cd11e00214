import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

@Suite("Health and routing")
struct HealthRoutesTests {
    @Test func healthIsOpenAndJSON() async throws {
        try await withTestServer { server in
            let response = try await server.anonymous.get("/health")
            #expect(response.status == 200)
            #expect(try response.json["status"] == .string("ok"))
            #expect(response.headers["content-type"] == "application/json; charset=utf-8")
        }
    }

    /// The v1 answer on SQLite; on PostgreSQL, also the database, the node
    /// and whether it holds the lease (a single node takes it within a second).
    static func expectedHealth(_ server: TestServer) -> String {
        guard TestBackend.current == .postgresql else { return #"{"status":"ok"}"# }
        return #"{"status":"ok","database":"postgresql","node":"\#(server.application.link.node)","lease":true}"#
    }

    @Test(.enabled(if: TestBackend.current == .postgresql)) func aSingleNodeOnPostgreSQLTakesTheLease() async throws {
        try await withTestServer { server in
            #expect(waitUntil(seconds: 10) { (try? server.anonymous.get("/health").text) == Self.expectedHealth(server) })
            let metrics = try server.reader.get("/metrics").text
            #expect(metrics.contains("sensei_node_lease 1"))
            #expect(metrics.contains(#"sensei_database_info{backend="postgresql""#))
        }
    }

    @Test func unknownRouteIs404JSON() async throws {
        try await withTestServer { server in
            for path in ["/nope", "/sensors/1/data/extra", "/", "/sensor_data"] {
                let response = try await server.admin.get(path)
                #expect(response.status == (path == "/sensor_data" ? 405 : 404), "\(path)")
                #expect(response.errorMessage != nil, "\(path)")
            }
            #expect(try await server.admin.get("/nope").errorMessage == "no route for GET /nope")
        }
    }

    @Test func wrongMethodIs405WithAllow() async throws {
        try await withTestServer { server in
            let put = try await server.admin.request("PUT", "/sensors/1")
            #expect(put.status == 405)
            #expect(put.headers["allow"] == "GET, PATCH, DELETE")
            #expect(put.errorMessage == "method PUT is not allowed here; use GET, PATCH, DELETE")
            let deleteAll = try await server.admin.delete("/sensors")
            #expect(deleteAll.status == 405)
            #expect(deleteAll.headers["allow"] == "GET, POST")
        }
    }

    @Test func trailingSlashIsIgnoredAndHeadWorks() async throws {
        try await withTestServer { server in
            #expect(try await server.admin.get("/sensors/").status == 200)
            let head = try await server.admin.request("HEAD", "/health")
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
        }
    }
}
