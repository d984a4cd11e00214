import Foundation
import SenseiTestSupport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A loopback server that accepts every connection and never answers, for
/// the client's timeouts. It keeps the time from each accept to the
/// client's hang-up on its own thread, so a test can bound how long the
/// client waited without counting the time its own task waited for a
/// thread of the cooperative pool (which the other tests share).
final class SilentHTTPServer: Sendable {
    let port: Int
    private let socket: Int32
    private let state = Mutex(State())
    private let finished = DispatchSemaphore(value: 0)

    private struct State {
        var heads: [String] = []
        var hangUps: [Duration] = []
        var releaseRequested = false
        var stopped = false
    }

    init() throws {
        (socket, port) = try openLoopbackListener()
        Thread.detachNewThread { [self] in
            hold()
            finished.signal()
        }
    }

    /// What the clients sent so far, each connection's bytes as text.
    var requests: [String] { state.withLock { $0.heads.filter { !$0.isEmpty } } }

    /// For each connection the client closed: how long after it was accepted.
    var hangUps: [Duration] { state.withLock { $0.hangUps } }

    /// How long the first client to hang up kept its connection, waiting (up
    /// to `seconds`, a bound that only catches a hang) for it to hang up.
    func firstHangUp(within seconds: Double = 60) async throws -> Duration {
        guard let waited = try await pollAsync(seconds: seconds, { hangUps.first }) else {
            throw WaitTimeout(description: "no client hung up within \(seconds) s")
        }
        return waited
    }

    /// Closes every connection held now, unanswered.
    func release() {
        state.withLock { $0.releaseRequested = true }
    }

    func stop() {
        state.withLock { $0.stopped = true }
        finished.wait()
        close(socket)
    }

    private func hold() {
        var held: [(fd: Int32, since: ContinuousClock.Instant, index: Int)] = []
        defer { for connection in held { close(connection.fd) } }
        while true {
            let (stopped, release) = state.withLock { state in
                defer { state.releaseRequested = false }
                return (state.stopped, state.releaseRequested)
            }
            if stopped { return }
            if release {
                for connection in held { close(connection.fd) }
                held.removeAll()
            }
            var descriptors = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0)]
                + held.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            guard poll(&descriptors, nfds_t(descriptors.count), 20) > 0 else { continue }
            for (position, connection) in held.enumerated().reversed() where descriptors[position + 1].revents != 0 {
                var buffer = [UInt8](repeating: 0, count: 4096)
                let count = recv(connection.fd, &buffer, buffer.count, 0)
                if count > 0 {
                    state.withLock { $0.heads[connection.index] += String(decoding: buffer[0..<count], as: UTF8.self) }
                } else {
                    let waited = ContinuousClock.now - connection.since
                    state.withLock { $0.hangUps.append(waited) }
                    close(connection.fd)
                    held.remove(at: position)
                }
            }
            if descriptors[0].revents != 0 {
                let fd = accept(socket, nil, nil)
                guard fd >= 0 else { continue }
                let index = state.withLock { state in
                    state.heads.append("")
                    return state.heads.count - 1
                }
                held.append((fd, .now, index))
            }
        }
    }
}
