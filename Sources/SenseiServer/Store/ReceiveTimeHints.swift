import Synchronization

/// Where each sensor's next reading without a timestamp may start: one past
/// the last millisecond given out that way.
///
/// Receive-time readings never collide: one on a taken millisecond moves on
/// by 1 ms. Probing from the receive time each time made a batch of n such
/// readings cost n²/2 inserts, and left a run that every later write walked
/// again; starting after the last one handed out makes both O(1) a reading.
/// A hint is only where probing starts (the insert still checks), so a stale
/// one — after a rollback, a retention sweep or a deletion — can only leave a
/// free millisecond unused, never make two readings collide.
final class ReceiveTimeHints: Sendable {
    private let next = Mutex<[Int64: Int64]>([:])

    /// The first millisecond worth trying for `sensorID` at `receivedAt`.
    func start(for sensorID: Int64, receivedAt: Int64) -> Int64 {
        max(receivedAt, next.withLock { $0[sensorID] } ?? .min)
    }

    func record(_ nextFree: Int64, for sensorID: Int64) {
        next.withLock { $0[sensorID] = max(nextFree, $0[sensorID] ?? .min) }
    }
}
