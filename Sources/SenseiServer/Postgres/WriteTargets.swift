import SenseiModels
import Synchronization

/// What a write needs of the sensors this node wrote to lately, by the
/// reference its writes name them with: never trusted, only tried (see
/// `PostgresWritesTogether`), so another node's change or deletion is noticed.
final class WriteTargets: Sendable {
    struct Target: Sendable {
        let id: Int64
        let code: String
        let valueType: ValueType
    }

    /// Past this many, the map starts again empty: a bound on memory, not a cache policy.
    static let limit = 50_000
    private let targets = Mutex<[SensorReference: Target]>([:])

    subscript(reference: SensorReference) -> Target? {
        targets.withLock { $0[reference] }
    }

    func remember(_ target: Target, as reference: SensorReference) {
        targets.withLock { targets in
            if targets.count >= Self.limit { targets.removeAll(keepingCapacity: true) }
            targets[reference] = target
        }
    }
}
