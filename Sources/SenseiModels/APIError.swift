/// An error the API answers with: a status and a message for a person,
/// sent as `{"error": message}`.
public struct APIError: Error, Sendable, Equatable, CustomStringConvertible {
    public let status: Int
    public let message: String
    /// Headers the status calls for (`Allow` on 405, `WWW-Authenticate` on 401).
    public let headers: [String: String]

    public init(status: Int, message: String, headers: [String: String] = [:]) {
        self.status = status
        self.message = message
        self.headers = headers
    }

    public var description: String { "\(status) \(message)" }

    public var body: [UInt8] {
        var writer = JSONWriter(capacity: message.utf8.count + 16)
        writer.beginObject()
        writer.key("error")
        writer.string(message)
        writer.endObject()
        return writer.bytes
    }

    public static func badRequest(_ message: String) -> APIError { APIError(status: 400, message: message) }

    public static let unauthorized = APIError(
        status: 401, message: "unauthorized", headers: ["WWW-Authenticate": "Bearer"])

    public static func forbidden(_ message: String) -> APIError { APIError(status: 403, message: message) }

    public static func notFound(_ message: String) -> APIError { APIError(status: 404, message: message) }

    public static func methodNotAllowed(_ method: String, allowed: [String]) -> APIError {
        APIError(status: 405, message: "method \(method) is not allowed here; use \(allowed.joined(separator: ", "))",
                 headers: ["Allow": allowed.joined(separator: ", ")])
    }

    public static func conflict(_ message: String) -> APIError { APIError(status: 409, message: message) }

    public static func payloadTooLarge(limit: Int) -> APIError {
        APIError(status: 413, message: "request body is larger than the limit of \(limit) bytes")
    }

    public static func unsupportedMediaType(_ contentType: String) -> APIError {
        APIError(status: 415, message: "body declared as '\(contentType)' is not JSON; send application/json")
    }

    public static func unprocessable(_ message: String) -> APIError { APIError(status: 422, message: message) }

    public static let overloaded = APIError(
        status: 503, message: "server is busy; retry shortly", headers: ["Retry-After": "1"])

    public static let internalError = APIError(status: 500, message: "internal error")
}
