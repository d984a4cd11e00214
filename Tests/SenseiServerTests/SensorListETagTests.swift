import Foundation
import Testing
import SenseiModels
import SenseiTestSupport
@testable import SenseiServer

/// `GET /sensors` carries an `ETag` that changes with the list; sent back
/// in `If-None-Match`, it gets `304` and no body while nothing changed:
/// a dashboard's poll of 10,000 sensors costs a few bytes at rest.
@Suite("Sensor list ETag")
struct SensorListETagTests {
    static func list(_ server: TestServer, _ path: String = "/sensors", holding tag: String? = nil,
                     gzip: Bool = false) async throws -> HTTPResponse {
        var headers: [String: String] = [:]
        if let tag { headers["If-None-Match"] = tag }
        if gzip { headers["Accept-Encoding"] = "gzip" }
        return try await server.reader.request("GET", path, headers: headers)
    }

    @Test func unchangedListIs304UntilACommit() async throws {
        try await withTestServer { server in
            #expect(try await server.writer.post("/sensors/porch/data", json: #"{"value":1}"#).status == 201)
            let first = try await Self.list(server)
            #expect(first.status == 200)
            let tag = try #require(first.headers["etag"])
            #expect(tag.hasPrefix("W/\""))

            let again = try await Self.list(server, holding: tag)
            #expect(again.status == 304)
            #expect(again.body.isEmpty)
            #expect(again.headers["etag"] == tag)
            // The strong form, a list of tags and `*` match too; another tag does not.
            #expect(try await Self.list(server, holding: String(tag.dropFirst(2))).status == 304)
            #expect(try await Self.list(server, holding: "\"other\", \(tag)").status == 304)
            #expect(try await Self.list(server, holding: "*").status == 304)
            #expect(try await Self.list(server, holding: "W/\"other\"").status == 200)
            // Gzipped or not, the same tag (weak: the same data).
            let gzipped = try await Self.list(server, gzip: true)
            #expect(gzipped.headers["etag"] == tag)
            #expect(try await Self.list(server, holding: tag, gzip: true).status == 304)

            // A reading commits: a new tag and the new body.
            #expect(try await server.writer.post("/sensors/porch/data", json: #"{"value":2}"#).status == 201)
            let changed = try await Self.list(server, holding: tag)
            #expect(changed.status == 200)
            #expect(try changed.json["sensors"]?[0]?["latest"]?["value"] == .number(2))
            let newTag = try #require(changed.headers["etag"])
            #expect(newTag != tag)
            // Metadata too.
            #expect(try await server.admin.patch("/sensors/porch", json: #"{"units":"°C"}"#).status == 200)
            #expect(try await Self.list(server, holding: newTag).status == 200)

            // A filtered list is tagged the same way.
            let filtered = try await Self.list(server, "/sensors?label=source:api")
            let filteredTag = try #require(filtered.headers["etag"])
            #expect(try await Self.list(server, "/sensors?label=source:api", holding: filteredTag).status == 304)
        }
    }

    /// The tag is the list's: the same after a restart while the list is,
    /// and not moved by commits that leave the list as it was (a token's
    /// last use, written once a minute on its first request).
    @Test func theTagIsTheListsAcrossRestartsAndOtherCommits() async throws {
        try await withTemporaryDirectory { directory in
            let tag = try await withTestServer(dataDirectory: directory) { server in
                #expect(try await server.writer.post("/sensors/porch/data", json: #"{"value":1}"#).status == 201)
                let before = server.storage.changeCount
                let tag = try #require(try await Self.list(server).headers["etag"])
                // A new token's first use is recorded by a commit of its own.
                let fresh = try server.storage.createToken(name: "fresh", scope: .read, at: .now())
                #expect(try await server.reader.request("GET", "/alerts", token: fresh).status == 200)
                try await waitUntil("the token's use committed", seconds: 10) {
                    try server.storage.tokens().first { $0.name == "fresh" }?.lastUsedAt != nil
                }
                #expect(server.storage.changeCount > before)
                #expect(try await Self.list(server, holding: tag).status == 304)
                return tag
            }
            try await withTestServer(dataDirectory: directory) { server in
                #expect(try await Self.list(server, holding: tag).status == 304)
                #expect(try await server.writer.post("/sensors/porch/data", json: #"{"value":2}"#).status == 201)
                let after = try await Self.list(server, holding: tag)
                #expect(after.status == 200)
                #expect(after.headers["etag"] != tag)
            }
        }
    }
}
