import Foundation

/// The dashboard's own measure of itself (`--frame-log FILE`, hidden): a line
/// per key press with the milliseconds from reading the key to the end of
/// the frame that shows it, and when the list first showed and when each
/// sync ended, in milliseconds since start. `bench/dashboard-many.sh` reads
/// it; tmux's capture of the screen would add its own ~10 ms to every figure.
final class FrameLog {
    private let handle: FileHandle
    private let started = ContinuousClock.now
    private var listShown = false

    init?(path: String) {
        guard FileManager.default.createFile(atPath: path, contents: nil),
              let handle = FileHandle(forWritingAtPath: path) else { return nil }
        self.handle = handle
    }

    /// A key read at `read` was drawn now.
    func keyDrawn(_ key: Key, readAt read: ContinuousClock.Instant) {
        let name: String
        if case .character(let character) = key { name = String(character) } else { name = "\(key)" }
        write("key \(name) \(Self.milliseconds(ContinuousClock.now - read))")
    }

    /// A frame was drawn of `model`.
    func drawn(_ model: AppModel) {
        guard !listShown, model.sensorsLoaded, !model.sensors.isEmpty else { return }
        listShown = true
        write("list \(Self.milliseconds(ContinuousClock.now - started)) \(model.sensors.count)")
    }

    func syncEnded(_ message: Msg) {
        switch message {
        case .syncFinished: write("synced \(Self.milliseconds(ContinuousClock.now - started))")
        case .syncFailed(let failure, _): write("sync-failed \(Self.milliseconds(ContinuousClock.now - started)) \(failure.message)")
        default: break
        }
    }

    private func write(_ line: String) {
        handle.write(Data((line + "\n").utf8))
    }

    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(format: "%.3f", Double(seconds) * 1000 + Double(attoseconds) / 1e15)
    }
}
