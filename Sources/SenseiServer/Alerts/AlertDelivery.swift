import Dispatch
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SenseiModels
import Synchronization

/// Sends one outbox entry over HTTP, with a timeout.
///
/// Through Foundation's URLSession (on Linux FoundationNetworking, over
/// libcurl), a well-kept client the toolchain ships and the dashboard
/// already uses: it adds no package to build, where AsyncHTTPClient would
/// bring SwiftNIO and its TLS stack (minutes of compiling on the reference
/// machine and several MB of resident memory against the 50 MB target) for
/// a few POSTs an hour.
struct AlertDelivery: Sendable {
    private let sessions: LazySession
    private let timeout: TimeInterval
    private let loopbackOnly: Bool

    /// At least 1 s: Linux's URLSession times out at once on anything shorter.
    init(timeout: TimeInterval, loopbackOnly: Bool = false) {
        self.timeout = max(1, timeout)
        self.loopbackOnly = loopbackOnly
        sessions = LazySession(timeout: self.timeout)
    }

    func invalidate() {
        sessions.invalidate()
    }

    /// The session, made on the first delivery: making one sets up Foundation's
    /// shared cookie storage and URL cache, which look for (and try to create)
    /// directories under $HOME, outside what the systemd unit lets the server
    /// touch (deploy/check.sh's traced run caught it). A server with no alert
    /// to deliver never does.
    private final class LazySession: Sendable {
        private let timeout: TimeInterval
        private let made = Mutex<URLSession?>(nil)

        init(timeout: TimeInterval) { self.timeout = timeout }

        var session: URLSession {
            made.withLock { made in
                if let made { return made }
                let configuration = URLSessionConfiguration.ephemeral
                configuration.timeoutIntervalForRequest = timeout
                configuration.timeoutIntervalForResource = timeout
                configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
                configuration.httpShouldSetCookies = false
                configuration.urlCache = nil
                let session = URLSession(configuration: configuration)
                made = session
                return session
            }
        }

        func invalidate() {
            made.withLock { $0?.invalidateAndCancel() }
        }
    }

    /// nil when the receiver took it (a 2xx answer); else why not, fit for
    /// a log: never the URL, which may hold credentials.
    func send(_ entry: OutboxEntry) -> String? {
        guard let target = NotifyTarget(entry.url) else { return "not a valid notify URL" }
        if loopbackOnly && !target.isLoopback { return "not sent: the server delivers only to loopback" }
        guard let request = Self.request(for: entry, to: target, timeout: timeout) else {
            return "the stored notification is not valid JSON"
        }
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        let task = sessions.session.dataTask(with: request) { _, response, error in
            if let error {
                outcome.set(Self.describe(error))
            } else if let status = (response as? HTTPURLResponse)?.statusCode, !(200..<300).contains(status) {
                outcome.set("HTTP \(status)")
            }
            done.signal()
        }
        task.resume()
        // URLSession's own timeout should end it first; this only guards a hang.
        if done.wait(timeout: .now() + timeout + 2) == .timedOut {
            task.cancel()
            return "timed out after \(Int(timeout)) s"
        }
        return outcome.value
    }

    static func request(for entry: OutboxEntry, to target: NotifyTarget, timeout: TimeInterval) -> URLRequest? {
        var request = URLRequest(url: target.url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        request.setValue("sensei-server", forHTTPHeaderField: "User-Agent")
        if let authorization = target.authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
        switch target.form {
        case .webhook:
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(entry.payload.utf8)
        case .ntfy:
            guard let payload = try? JSONParser.parse(entry.payload),
                  let message = payload["message"]?.stringValue else { return nil }
            let firing = payload["state"]?.stringValue == "firing"
            let name = payload["alert"]?["name"]?.stringValue ?? "Sensei alert"
            request.setValue("text/plain; charset=utf-8", forHTTPHeaderField: "Content-Type")
            request.setValue(headerText(firing ? name : "Resolved: \(name)"), forHTTPHeaderField: "Title")
            request.setValue(firing ? "high" : "default", forHTTPHeaderField: "Priority")
            request.setValue(firing ? "warning" : "white_check_mark", forHTTPHeaderField: "Tags")
            request.httpBody = Data(message.utf8)
        }
        return request
    }

    /// A header value as ntfy reads it: ASCII as it is, anything else as an
    /// RFC 2047 encoded word, which ntfy decodes (a rule's name may be "Gefrierschrank zu warm ❄").
    static func headerText(_ text: String) -> String {
        if text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) { return text }
        return "=?UTF-8?B?" + Data(text.utf8).base64EncodedString() + "?="
    }

    /// The error without its userInfo, which names the URL.
    private static func describe(_ error: any Error) -> String {
        guard let error = error as? URLError else { return "request failed" }
        switch error.code {
        case .timedOut: return "timed out"
        case .cannotConnectToHost, .networkConnectionLost, .notConnectedToInternet: return "could not connect"
        case .cannotFindHost, .dnsLookupFailed: return "host not found"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateHasUnknownRoot, .serverCertificateNotYetValid: return "TLS failed"
        default: return "request failed (URL error \(error.code.rawValue))"
        }
    }

    private final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: String?

        func set(_ value: String) {
            lock.lock()
            stored = value
            lock.unlock()
        }

        var value: String? {
            lock.lock()
            defer { lock.unlock() }
            return stored
        }
    }
}
