import Foundation
import SenseiModels

/// Where the dashboard finds its server: URL and token, each taken from the
/// first of `--url`/`--token`, `SENSEI_URL`/`SENSEI_TOKEN`, or the config file.
public struct DashboardConfig: Equatable, Sendable {
    public var url: String
    public var token: String

    public init(url: String, token: String) {
        self.url = url
        self.token = token
    }

    /// `$XDG_CONFIG_HOME/sensei/config`, else `~/.config/sensei/config`.
    public static func defaultPath(environment: [String: String]) -> String {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") { return xdg + "/sensei/config" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + "/.config/sensei/config"
    }

    /// The configuration, or nil when the URL or the token is found nowhere.
    public static func resolve(url flagURL: String?, token flagToken: String?,
                               environment: [String: String], configPath: String) throws -> DashboardConfig? {
        let file = try readFile(configPath)
        let nonEmpty = { (value: String?) in value.flatMap { $0.isEmpty ? nil : $0 } }
        guard let url = nonEmpty(flagURL) ?? nonEmpty(environment["SENSEI_URL"]) ?? nonEmpty(file["url"]),
              let token = nonEmpty(flagToken) ?? nonEmpty(environment["SENSEI_TOKEN"]) ?? nonEmpty(file["token"])
        else { return nil }
        return DashboardConfig(url: try normalized(url), token: token)
    }

    /// `http://host:port` without a trailing slash; a bare host gets `http://`.
    public static func normalized(_ url: String) throws -> String {
        var url = url.trimmingCharacters(in: .whitespaces)
        if !url.contains("://") { url = "http://" + url }
        while url.hasSuffix("/") { url.removeLast() }
        guard let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased(),
              scheme == "http" || scheme == "https", parsed.host?.isEmpty == false else {
            throw ConfigError.invalidURL(url)
        }
        return url
    }

    /// `key = value` lines; `#` starts a comment. A missing file is empty.
    static func readFile(_ path: String) throws -> [String: String] {
        guard FileManager.default.fileExists(atPath: path) else { return [:] }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var values: [String: String] = [:]
        for line in text.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.hasPrefix("#"), let equals = trimmed.firstIndex(of: "=") else { continue }
            let key = trimmed[..<equals].trimmingCharacters(in: .whitespaces)
            values[key] = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        return values
    }

    /// `raw_days = N` in the config file: days of raw readings the cache
    /// keeps; nil when the file or the key is absent.
    public static func rawDays(configPath: String) throws -> Int? {
        guard let text = try readFile(configPath)["raw_days"] else { return nil }
        guard let days = Int(text), days >= 1 else { throw ConfigError.invalidRawDays(text) }
        return days
    }

    /// `tz = Area/City` in the config file: the zone usage bars count days
    /// and months in; without it, the system's. A name the tz database
    /// does not hold is an error, so the bars never count in a zone the user
    /// did not mean.
    public static func timeZone(configPath: String, environment: [String: String]) throws -> TimeZoneRules {
        guard let name = try readFile(configPath)["tz"] else { return LocalZone.rules(environment: environment) }
        do {
            return try TimeZoneRules.named(name)
        } catch {
            throw ConfigError.invalidTimeZone(name, error.description)
        }
    }

    /// Writes the config file readable by its owner only (it holds the token).
    public func write(to path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let text = "# sensei dashboard: the server to watch\nurl = \(url)\ntoken = \(token)\n"
        unlink(path)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw ConfigError.cannotWrite(path) }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        guard Glibc.write(descriptor, bytes, bytes.count) == bytes.count else { throw ConfigError.cannotWrite(path) }
    }

    /// A name for the server, for titles and the cache file: `host:port`.
    public var serverName: String {
        guard let parsed = URL(string: url), let host = parsed.host else { return url }
        return parsed.port.map { "\(host):\($0)" } ?? host
    }
}

public enum ConfigError: Error, Equatable, CustomStringConvertible {
    case invalidURL(String)
    case invalidRawDays(String)
    case invalidTimeZone(String, String)
    case cannotWrite(String)
    case notConfigured(configPath: String)

    public var description: String {
        switch self {
        case .invalidURL(let url): "'\(url)' is not an http:// or https:// server URL"
        case .invalidRawDays(let text): "raw_days in the config file must be a whole number of days, at least 1, not '\(text)'"
        case .invalidTimeZone(let name, let reason):
            "tz in the config file must be a time zone of the system's tz database such as Europe/Berlin, not '\(name)' (\(reason))"
        case .cannotWrite(let path): "cannot write \(path)"
        case .notConfigured(let path):
            "no server configured: pass --url and --token, set SENSEI_URL and SENSEI_TOKEN, or write \(path) (run sensei in a terminal to be asked)"
        }
    }
}
