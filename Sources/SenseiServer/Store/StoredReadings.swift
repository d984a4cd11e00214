import SenseiModels
import Synchronization

/// What a committed reading write stored, as `GroupCommit` reports it to its
/// observers: the metrics count `count`, the live stream (`ReadingStreams`)
/// sends `readings`. Every ingest write reports one of these (or one per
/// sensor) through `GroupCommit.submit(_:stored:completion:)`, so whatever
/// path a reading came in by, its commit is seen the same way.
public struct StoredReadings: Sendable {
    public let sensorID: Int64
    public let code: String
    /// How many readings the write accepted.
    public let count: Int
    /// The readings as stored (receive-time ones at their final
    /// millisecond), in the write's order; empty unless `ReadingTap` was on.
    public let readings: [Reading]
}

/// Whether writes keep a copy of what they store: only while someone
/// watches the live stream, so that ingestion pays nothing for it otherwise.
public final class ReadingTap: Sendable {
    private let watchers = Atomic<Int>(0)

    public init() {}

    var isOn: Bool { watchers.load(ordering: .relaxed) > 0 }
    func attach() { watchers.wrappingAdd(1, ordering: .relaxed) }
    func detach() { watchers.wrappingSubtract(1, ordering: .relaxed) }
}
