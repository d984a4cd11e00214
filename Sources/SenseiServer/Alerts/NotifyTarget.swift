import Foundation

/// A rule's `notify` entry: an `http(s)` webhook, or `ntfy:` and the URL of
/// an ntfy topic. Credentials written in it (`user:pass@`, a token in the
/// query) are sent but never logged: `redacted` is what logs and errors show.
struct NotifyTarget: Sendable, Equatable {
    enum Form: Sendable, Equatable {
        /// The JSON body of docs/design.md, "Alerts".
        case webhook
        /// ntfy's plain text: body = the message; Title, Priority, Tags headers.
        case ntfy
    }

    let form: Form
    /// The URL without user information.
    let url: URL
    /// `Authorization: Basic …` from the URL's user information, if any.
    let authorization: String?
    let redacted: String

    static let ntfyPrefix = "ntfy:"

    /// The receiver is this machine, named by a loopback address.
    var isLoopback: Bool {
        guard let host = url.host?.lowercased() else { return false }
        return host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    init?(_ text: String) {
        let form: Form = text.hasPrefix(Self.ntfyPrefix) ? .ntfy : .webhook
        let address = form == .ntfy ? String(text.dropFirst(Self.ntfyPrefix.count)) : text
        guard Self.problem(address: address, form: form) == nil, var components = URLComponents(string: address)
        else { return nil }
        if let user = components.user {
            let credentials = (user.removingPercentEncoding ?? user) + ":"
                + (components.password.map { $0.removingPercentEncoding ?? $0 } ?? "")
            authorization = "Basic " + Data(credentials.utf8).base64EncodedString()
        } else {
            authorization = nil
        }
        components.user = nil
        components.password = nil
        guard let url = components.url else { return nil }
        self.form = form
        self.url = url
        var shown = (components.scheme ?? "") + "://" + (components.host ?? "")
        if let port = components.port { shown += ":\(port)" }
        shown += components.percentEncodedPath
        if components.percentEncodedQuery != nil { shown += "?…" }
        redacted = (form == .ntfy ? Self.ntfyPrefix : "") + shown
    }

    /// Why `text` cannot be a notify target, or nil.
    static func problem(with text: String) -> String? {
        let form: Form = text.hasPrefix(ntfyPrefix) ? .ntfy : .webhook
        return problem(address: form == .ntfy ? String(text.dropFirst(ntfyPrefix.count)) : text, form: form)
    }

    private static func problem(address: String, form: Form) -> String? {
        guard address.utf8.count <= AlertRuleDecoding.maximumURLLength else {
            return "longer than \(AlertRuleDecoding.maximumURLLength) bytes"
        }
        guard address.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            return "a URL may not hold spaces, control or non-ASCII characters (percent-encode them)"
        }
        guard let components = URLComponents(string: address),
              let scheme = components.scheme?.lowercased(), ["http", "https"].contains(scheme) else {
            return "must be an http:// or https:// URL, or ntfy: followed by one"
        }
        guard let host = components.host, !host.isEmpty else { return "the URL has no host" }
        if form == .ntfy, components.path.split(separator: "/").isEmpty {
            return "an ntfy URL names its topic: ntfy:https://ntfy.sh/my-topic"
        }
        guard components.fragment == nil else { return "a URL with a #fragment is not sent anywhere" }
        return nil
    }
}
