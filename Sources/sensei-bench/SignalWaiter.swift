import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// Blocks until SIGINT or SIGTERM arrives, so a server can stop cleanly.
/// The handlers are dispatch sources: nothing runs in signal context.
struct SignalWaiter {
    private let sources: [DispatchSourceSignal]
    private let received = DispatchSemaphore(value: 0)

    init(signals: [Int32] = [SIGINT, SIGTERM]) {
        var sources: [DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            let received = received
            source.setEventHandler { received.signal() }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    func wait() {
        received.wait()
    }
}
