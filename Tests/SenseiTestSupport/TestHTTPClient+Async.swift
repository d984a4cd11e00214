/// The client for async tests: each call is the blocking one, run off the
/// cooperative pool (`offThePool`), so a test waiting on the server holds
/// no thread of it. Same names as the blocking calls: in an async function
/// Swift picks these, and asks for `await`.
extension TestHTTPClient {
    package func get(_ path: String, token: String?? = nil) async throws -> HTTPResponse {
        try await offThePool { try get(path, token: token) }
    }

    package func post(_ path: String, json: String, token: String?? = nil,
                      contentType: String? = "application/json") async throws -> HTTPResponse {
        try await offThePool { try post(path, json: json, token: token, contentType: contentType) }
    }

    package func patch(_ path: String, json: String, token: String?? = nil) async throws -> HTTPResponse {
        try await offThePool { try patch(path, json: json, token: token) }
    }

    package func delete(_ path: String, token: String?? = nil) async throws -> HTTPResponse {
        try await offThePool { try delete(path, token: token) }
    }

    package func request(_ method: String, _ path: String, body: [UInt8]? = nil, token: String?? = nil,
                         contentType: String? = nil, headers: [String: String] = [:]) async throws -> HTTPResponse {
        try await offThePool {
            try request(method, path, body: body, token: token, contentType: contentType, headers: headers)
        }
    }

    package func raw(_ bytes: [UInt8]) async throws -> HTTPResponse {
        try await offThePool { try raw(bytes) }
    }
}
