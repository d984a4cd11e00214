import Foundation
import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

/// JSON and CSV answers come gzip-compressed to a client that takes gzip, and
/// decode (with the system's own `gzip`) to exactly the plain answer.
@Suite("Response compression", .serialized)
struct ResponseCompressionTests {
    @Test(arguments: [
        ("gzip", true), ("GZIP", true), ("x-gzip", true), ("deflate, gzip", true), ("gzip;q=0.5", true),
        ("br;q=1.0, gzip;q=0.001", true), ("*", true), ("*;q=0.3", true), ("identity, *;q=1", true),
        ("", false), ("identity", false), ("deflate, br", false), ("gzip;q=0", false), ("gzip; q=0.000", false),
        ("*, gzip;q=0", false), ("*;q=0", false), ("gzip;q=abc", false), ("gzip;q=2", false), (" , ;", false),
    ])
    func acceptEncodingWithQValues(header: String, accepted: Bool) {
        #expect(ResponseCompression.acceptsGzip(header) == accepted, "\(header)")
    }

    /// Header names match in any case; a body already encoded is left alone.
    @Test func headerNamesInAnyCase() {
        let body = [UInt8](repeating: UInt8(ascii: "a"), count: 2_048)
        for name in ["Content-Type", "content-type", "CONTENT-TYPE"] {
            let response = ResponseCompression.apply(to: Response(status: 200, headers: [(name, "application/json")], body: body),
                                                     acceptEncoding: "gzip")
            #expect(response.headers.contains { $0 == ("Content-Encoding", "gzip") }, "\(name)")
        }
        for name in ["Content-Encoding", "content-encoding", "CONTENT-ENCODING"] {
            let response = ResponseCompression.apply(
                to: Response(status: 200, headers: [("Content-Type", "application/json"), (name, "br")], body: body),
                acceptEncoding: "gzip")
            #expect(response.body == body && !response.headers.contains { $0.value == "gzip" }, "\(name)")
        }
        let other = ResponseCompression.apply(to: Response(status: 200, headers: [("Content-Types", "application/json")], body: body),
                                              acceptEncoding: "gzip")
        #expect(other.body == body)
    }

    @Test func gzipAnswersDecodeToExactlyThePlainOnes() async throws {
        try await withTestServer { server in
            let readings = (0..<2_000).map { #"{"timestamp":\#(1_736_424_000 + $0 * 30),"value":\#(Double($0 % 173) / 8)}"# }
            #expect(try await server.writer.post("/sensors/g/data", json: #"{"data":[\#(readings.joined(separator: ","))]}"#)
                .status == 201)
            for path in ["/sensors/g/data?limit=2000", "/sensors/g/data.csv?limit=2000",
                         "/sensors/g/data?buckets=200&after=1736424000&before=1736484000",
                         "/sensors/g/aggregates?level=minute", "/sensors"] {
                let plain = try await server.reader.get(path)
                let compressed = try await server.reader.request("GET", path, headers: ["Accept-Encoding": "gzip, deflate"])
                #expect(plain.status == 200 && compressed.status == 200, "\(path)")
                #expect(plain.headers["content-encoding"] == nil, "\(path)")
                #expect(compressed.headers["vary"] == "Accept-Encoding", "\(path)")
                guard plain.body.count >= ResponseCompression.minimumBytes else {
                    #expect(compressed.body == plain.body, "\(path): a small body stays plain")
                    continue
                }
                #expect(compressed.headers["content-encoding"] == "gzip", "\(path)")
                #expect(compressed.body.count * 3 < plain.body.count, "\(path): \(compressed.body.count) bytes")
                #expect(try await Self.gunzip(compressed.body) == plain.text, "\(path)")
            }
            let refused = try await server.reader.request("GET", "/sensors/g/data?limit=2000",
                                                    headers: ["Accept-Encoding": "gzip;q=0, *"])
            #expect(refused.headers["content-encoding"] == nil)
            #expect(try refused.json["data"]?.arrayValue?.count == 2_000)
        }
    }

    @Test func errorsAndSmallBodiesStayPlain() async throws {
        try await withTestServer { server in
            let missing = try await server.reader.request("GET", "/sensors/none", headers: ["Accept-Encoding": "gzip"])
            #expect(missing.status == 404 && missing.headers["content-encoding"] == nil)
            #expect(missing.errorMessage != nil)
        }
    }

    /// The body through `gzip -dc`: an independent decoder, not our zlib calls.
    static func gunzip(_ bytes: [UInt8]) async throws -> String {
        let path = NSTemporaryDirectory() + "sensei-gzip-" + UUID().uuidString + ".gz"
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let result = try await runTool("gzip", ["-dc", path])
        #expect(result.status == 0, "\(result.error)")
        return result.output
    }
}
