import Foundation

/// `--database postgresql://user:password@host:port/database?sslmode=require`
/// (or `SENSEI_DATABASE_URL`): where a node keeps its data when it is not the
/// SQLite file of its data directory. The forms libpq takes, so the URL an
/// operator already uses with `psql` works here: `postgres://` or
/// `postgresql://`, percent-escaped user and password, the port 5432 when none
/// is given, a Unix socket as `?host=/run/postgresql`, and `sslmode` one of
/// `disable`, `prefer` (libpq's default), `require`, `verify-ca` or
/// `verify-full`, with `sslrootcert=` naming the CA file to verify against.
public struct DatabaseURL: Sendable, Equatable, CustomStringConvertible {
    public enum SSLMode: String, Sendable, CaseIterable {
        case disable, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    public var user: String
    public var password: String?
    /// A host name or address; nil with `socketPath`.
    public var host: String?
    public var port: Int
    /// `?host=/run/postgresql`: the directory of the server's socket, as libpq.
    public var socketPath: String?
    public var database: String
    public var sslMode: SSLMode
    /// `sslrootcert=`: the CA certificates `verify-ca`/`verify-full` trust;
    /// nil: the system's (Debian's bundle, `systemCertificates`).
    public var rootCertificate: String?

    public init(_ text: String) throws {
        guard let components = URLComponents(string: text),
              let scheme = components.scheme, ["postgres", "postgresql"].contains(scheme) else {
            throw DatabaseURLError.invalid("expected postgresql://user:password@host:port/database")
        }
        let query = Dictionary(
            (components.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { _, last in last })
        let known: Set = ["sslmode", "sslrootcert", "host", "port", "user", "password"]
        if let unknown = query.keys.sorted().first(where: { !known.contains($0) }) {
            throw DatabaseURLError.invalid("unknown parameter '\(unknown)' (known: \(known.sorted().joined(separator: ", ")))")
        }
        user = query["user"] ?? components.percentEncodedUser?.removingPercentEncoding ?? "postgres"
        password = query["password"] ?? components.percentEncodedPassword?.removingPercentEncoding
        let queryHost = query["host"].flatMap { $0.isEmpty ? nil : $0 }
        if let queryHost, queryHost.hasPrefix("/") {
            socketPath = queryHost
            host = nil
        } else {
            socketPath = nil
            host = queryHost ?? components.host.flatMap { $0.isEmpty ? nil : $0 } ?? "localhost"
        }
        if let text = query["port"] {
            guard let port = Int(text), (1...65535).contains(port) else {
                throw DatabaseURLError.invalid("port '\(text)' is not a port number")
            }
            self.port = port
        } else {
            port = components.port ?? 5432
        }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.removingPercentEncoding ?? path
        guard !database.isEmpty else { throw DatabaseURLError.invalid("no database name after the host") }
        let mode = query["sslmode"] ?? SSLMode.prefer.rawValue
        guard let sslMode = SSLMode(rawValue: mode) else {
            let modes = SSLMode.allCases.map(\.rawValue).joined(separator: ", ")
            throw DatabaseURLError.invalid("sslmode '\(mode)' is not one of \(modes)")
        }
        self.sslMode = sslMode
        rootCertificate = query["sslrootcert"]
    }

    /// The URL without its password: for logs, `/health` and error messages.
    public var description: String {
        let place = socketPath.map { "?host=\($0)" } ?? ""
        let address = socketPath == nil ? "\(host ?? "localhost"):\(port)" : ""
        return "postgresql://\(user)@\(address)/\(database)\(place)"
    }

    /// What libpq connects with: its `key=value` form, each value quoted.
    /// TLS is libpq's own (`sslmode`, `sslrootcert`), over the system's OpenSSL.
    var conninfo: String {
        var settings: [(String, String)] = []
        if let socketPath {
            // A Unix socket: libpq names the directory; the socket file is accepted too.
            let file = "/.s.PGSQL.\(port)"
            settings.append(("host", socketPath.hasSuffix(file) ? String(socketPath.dropLast(file.count)) : socketPath))
        } else {
            settings.append(("host", host ?? "localhost"))
        }
        settings.append(("port", "\(port)"))
        settings.append(("user", user))
        if let password { settings.append(("password", password)) }
        settings.append(("dbname", database))
        settings.append(("sslmode", sslMode.rawValue))
        // libpq's own default is ~/.postgresql/root.crt; Sensei's has always
        // been the system's certificates.
        let verifies = sslMode == .verifyCA || sslMode == .verifyFull
        if let root = rootCertificate ?? (verifies ? Self.systemCertificates : nil) {
            settings.append(("sslrootcert", root))
        }
        return settings.map { key, value in "\(key)=\(Self.quoted(value))" }.joined(separator: " ")
    }

    /// Debian's CA bundle (ca-certificates), when there is one.
    static var systemCertificates: String? {
        let path = "/etc/ssl/certs/ca-certificates.crt"
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// A conninfo value: in single quotes, `\` and `'` escaped with a backslash.
    static func quoted(_ value: String) -> String {
        var text = "'"
        for character in value {
            if character == "\\" || character == "'" { text.append("\\") }
            text.append(character)
        }
        return text + "'"
    }
}

public enum DatabaseURLError: Error, CustomStringConvertible {
    case invalid(String)

    public var description: String {
        switch self {
        case .invalid(let reason): "--database: \(reason)"
        }
    }
}
