import Foundation

/// `mqtt://[user:pass@]host[:port]` or `mqtts://…` (TLS): where the broker is.
public struct MQTTBrokerURL: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int
    public var tls: Bool
    public var username: String?
    public var password: String?

    public init(parsing text: String) throws(MQTTConfigurationError) {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw .invalid("--mqtt must be a URL like mqtt://host:1883, got '\(Self.redacted(text))'")
        }
        switch scheme {
        case "mqtt": tls = false
        case "mqtts": tls = true
        default: throw .invalid("--mqtt must start with mqtt:// or mqtts://, got '\(scheme)://'")
        }
        guard let host = components.host, !host.isEmpty else {
            throw .invalid("--mqtt names no broker host: '\(Self.redacted(text))'")
        }
        guard components.path.isEmpty || components.path == "/", components.query == nil else {
            throw .invalid("--mqtt takes no path or query: subscribe with --mqtt-topic or --mqtt-preset")
        }
        self.host = host
        port = components.port ?? (tls ? 8883 : 1883)
        guard (1...65535).contains(port) else { throw .invalid("--mqtt port must be from 1 to 65535") }
        username = components.user.flatMap { $0.removingPercentEncoding ?? $0 }
        password = components.password.flatMap { $0.removingPercentEncoding ?? $0 }
    }

    /// Never with the password: this goes to logs and `/health`.
    public var description: String {
        (tls ? "mqtts://" : "mqtt://") + (username.map { "\($0)@" } ?? "") + host + ":\(port)"
    }

    private static func redacted(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@"), let scheme = text.range(of: "://") else { return text }
        return String(text[..<scheme.upperBound]) + "…" + String(text[at...])
    }
}

public enum MQTTConfigurationError: Error, CustomStringConvertible, Equatable {
    case invalid(String)

    public var description: String {
        switch self {
        case .invalid(let message): message
        }
    }
}
