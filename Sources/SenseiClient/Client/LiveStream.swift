import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SenseiModels
import Synchronization

/// What a live stream tells its reader.
public enum LiveEvent: Hashable, Sendable {
    /// The server accepted the stream: readings follow as they commit.
    case opened
    case reading(LiveReading)
    /// A rule's state moved, or a rule was created, edited or deleted.
    case alert(AlertChange)
}

extension APIClient {
    /// `GET /stream` (only `sensors`, codes or ids, when given): events until
    /// the stream ends; it then finishes, or throws what went wrong (a refusal
    /// with the server's message, or `.unreachable`). A stream that stays
    /// silent past `silence` (the server sends a heartbeat every 15 s) counts
    /// as dropped, and so does a connection the server does not answer within
    /// `answer` (a server answers a stream at once).
    public func live(sensors: [String] = [], silence: TimeInterval = 45,
                     answer: TimeInterval = 10) -> AsyncThrowingStream<LiveEvent, any Error> {
        AsyncThrowingStream { continuation in
            let request: URLRequest
            do {
                let query = sensors.map { URLQueryItem(name: "sensor", value: $0) }
                var built = URLRequest(url: try url(for: "/stream", query: query))
                built.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
                built.setValue("text/event-stream", forHTTPHeaderField: "Accept")
                request = built
            } catch {
                continuation.finish(throwing: error)
                return
            }
            if let url = request.url, url.scheme == "http", let host = url.host,
               let components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
                var target = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
                if let query = components.percentEncodedQuery { target += "?" + query }
                EventStreamSocket.start(host: host, port: url.port ?? 80, target: target, token: token,
                                        silence: silence, answer: answer, continuation: continuation)
                return
            }
            let reader = EventStreamDelegate(continuation: continuation)
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = max(1, silence)
            configuration.timeoutIntervalForResource = 365 * 86_400
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            let session = URLSession(configuration: configuration, delegate: reader, delegateQueue: nil)
            let task = session.dataTask(with: request)
            continuation.onTermination = { _ in
                task.cancel()
                session.invalidateAndCancel()
            }
            task.resume()
        }
    }
}

/// Cuts the bytes of a stream into server-sent events (`data:` lines up to a
/// blank line) and hands each reading on; keeps an error answer's body to
/// report its message.
private final class EventStreamDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let continuation: AsyncThrowingStream<LiveEvent, any Error>.Continuation
    /// Touched only on the session's serial delegate queue.
    private var buffer: [UInt8] = []
    private var parser = EventParser()
    private var status = 0

    init(continuation: AsyncThrowingStream<LiveEvent, any Error>.Continuation) {
        self.continuation = continuation
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        status = (response as? HTTPURLResponse)?.statusCode ?? 0
        if status == 200 { continuation.yield(.opened) }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        buffer.append(contentsOf: data)
        guard status == 200 else { return }
        for event in parser.take(&buffer) { continuation.yield(event) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        session.finishTasksAndInvalidate()
        if let error {
            continuation.finish(throwing: APIClient.failure(for: error))
        } else if status != 200 {
            continuation.finish(throwing: APIClient.failure(status: status, body: buffer))
        } else {
            continuation.finish()
        }
    }
}
