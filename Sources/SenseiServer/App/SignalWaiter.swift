import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Blocks until one of the signals arrives, so a server can stop cleanly;
/// they no longer kill the process. The handlers are dispatch sources:
/// nothing runs in signal context. `sensei-server serve` and
/// `sensei-bench hello` both stop this way.
public struct SignalWaiter {
    private let sources: [DispatchSourceSignal]
    private let received = DispatchSemaphore(value: 0)
    private let last = LastSignal()

    public init(signals: [Int32] = [SIGINT, SIGTERM]) {
        var sources: [DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            let received = received
            let last = last
            source.setEventHandler {
                last.value.store(number, ordering: .relaxed)
                received.signal()
            }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    /// Waits for a signal and returns its number.
    @discardableResult
    public func wait() -> Int32 {
        received.wait()
        return last.value.load(ordering: .relaxed)
    }
}

private final class LastSignal: Sendable {
    let value = Atomic<Int32>(0)
}
