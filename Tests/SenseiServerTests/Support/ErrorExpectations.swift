import Foundation
import Logging
import Testing
import SenseiModels
@testable import SenseiServer

#if canImport(Glibc)
import Glibc
#endif

// MARK: - Helpers

/// An error answer as docs/design.md ("Errors and limits") wants it: the status, a JSON content type and
/// a body that is exactly one `"error"` string, optionally mentioning `fragment`.
func expectError(_ response: HTTPResponse, _ status: Int, _ context: String, mentioning fragment: String? = nil,
                         sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(response.status == status, "\(context): \(response.status) \(response.text.prefix(200))",
            sourceLocation: sourceLocation)
    #expect(response.headers["content-type"]?.hasPrefix("application/json") == true,
            "\(context): content-type \(response.headers["content-type"] ?? "none")", sourceLocation: sourceLocation)
    let object = (try? response.json)?.objectValue
    #expect(object?.count == 1 && object?["error"]?.stringValue?.isEmpty == false,
            "\(context): body is not {\"error\": ...}: \(response.text.prefix(200))", sourceLocation: sourceLocation)
    if let fragment {
        #expect(response.errorMessage?.contains(fragment) == true,
                "\(context): \(response.errorMessage ?? "no message") does not mention \(fragment)",
                sourceLocation: sourceLocation)
    }
}

func expectCreated(_ response: HTTPResponse, _ context: String = "",
                           sourceLocation: SourceLocation = #_sourceLocation) throws {
    #expect(response.status == 201, "\(context): \(response.status) \(response.text.prefix(200))",
            sourceLocation: sourceLocation)
    #expect(try response.json == .object(["accepted": .number(1)]), sourceLocation: sourceLocation)
}

/// The server still serves, logged no error, and answered no request with a 500.
func expectStillHealthy(_ server: TestServer, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let health = try await server.anonymous.get("/health")
    #expect(health.status == 200, sourceLocation: sourceLocation)
    #expect(try health.json["status"] == .string("ok"), sourceLocation: sourceLocation)
    for entry in server.logs.entries {
        let message = "\(entry.message)"
        #expect(entry.level < .error, "logged at \(entry.level): \(message)", sourceLocation: sourceLocation)
        #expect(!message.contains(" 500 "), "answered 500: \(message)", sourceLocation: sourceLocation)
    }
}

/// Text and raw bytes joined: `bytes(#"{"value": ""#, [0xFF], #""}"#)`.
func bytes(_ parts: Any...) -> [UInt8] {
    parts.flatMap { part -> [UInt8] in
        switch part {
        case let text as String: Array(text.utf8)
        case let raw as [UInt8]: raw
        // An untyped literal such as [0xFF] arrives as [Int].
        case let numbers as [Int]: numbers.map { UInt8($0) }
        default: preconditionFailure("bytes(_:) takes String or byte arrays, not \(type(of: part))")
        }
    }
}

/// JSON padded with trailing spaces to exactly `count` bytes.
func padded(_ json: String, to count: Int) -> String {
    json + String(repeating: " ", count: count - json.utf8.count)
}

/// A request whose path is raw bytes, which `request` (taking a String) cannot send.
func rawRequest(_ client: TestHTTPClient, _ method: String, _ path: [UInt8],
                        body: [UInt8]? = nil) async throws -> HTTPResponse {
    var head = bytes("\(method) ", path, " HTTP/1.1\r\nHost: 127.0.0.1:\(client.port)\r\nConnection: close\r\n")
    if let token = client.token { head += Array("Authorization: Bearer \(token)\r\n".utf8) }
    if let body { head += Array("Content-Type: application/json\r\nContent-Length: \(body.count)\r\n".utf8) }
    head += Array("\r\n".utf8)
    return try await client.raw(head + (body ?? []))
}

/// A POST to `/sensors/probe/data` with the body in 1000-byte chunks and no Content-Length.
func chunkedPost(_ client: TestHTTPClient, _ body: String) -> [UInt8] {
    var request = Array(("POST /sensors/probe/data HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        + "Authorization: Bearer \(client.token!)\r\nContent-Type: application/json\r\n"
        + "Transfer-Encoding: chunked\r\n\r\n").utf8)
    var rest = Array(body.utf8)[...]
    while !rest.isEmpty {
        let chunk = rest.prefix(1000)
        rest = rest.dropFirst(chunk.count)
        request.append(contentsOf: "\(String(chunk.count, radix: 16))\r\n".utf8)
        request.append(contentsOf: chunk)
        request.append(contentsOf: "\r\n".utf8)
    }
    return request + Array("0\r\n\r\n".utf8)
}

/// Sends `request` and returns as soon as a whole response has arrived, not
/// waiting for the connection to close; fails after `timeoutSeconds` of silence.
func exchange(_ client: TestHTTPClient, _ request: [UInt8], timeoutSeconds: Int = 5) throws -> HTTPResponse {
    let socket = try client.connect()
    defer { close(socket) }
    var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
    setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    try client.send(request, on: socket)
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        if let response = try? TestHTTPClient.parse(received),
           let length = response.headers["content-length"].flatMap(Int.init), response.body.count >= length {
            return response
        }
        let count = recv(socket, &buffer, buffer.count, 0)
        if count > 0 {
            received.append(contentsOf: buffer[0..<count])
        } else if count == 0 || errno == ECONNRESET {
            return try TestHTTPClient.parse(received)
        } else {
            throw HTTPClientError(description: "no answer within \(timeoutSeconds) s (errno \(errno))")
        }
    }
}

/// `exchange` for async tests: the wait for the answer, off the cooperative
/// pool (`offThePool`).
func exchange(_ client: TestHTTPClient, _ request: [UInt8], timeoutSeconds: Int = 5) async throws -> HTTPResponse {
    try await offThePool { try exchange(client, request, timeoutSeconds: timeoutSeconds) }
}
