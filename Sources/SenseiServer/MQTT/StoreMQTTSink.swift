import Dispatch
import SenseiModels
import Synchronization

/// The store as the MQTT subscriber's sink: one call's points are one write
/// of the store's series ingest, so they share a group commit with whatever
/// else is committing, and the call returns once they are durable.
struct StoreMQTTSink: MQTTPointSink {
    let store: SenseiStore

    func store(_ points: [MQTTPoint]) -> MQTTStoreOutcome {
        let series = points.map { point in
            SeriesPoint(series: Series(
                // The topic and the field tell every MQTT series apart: a plain
                // value's field is a function of its topic, a JSON leaf's is its key path.
                identity: SeriesIdentity(source: "mqtt", parts: [point.topic, point.field]),
                preferredCode: point.preferredCode, labels: point.labels, name: point.name, units: point.units,
                valueType: point.valueType), value: point.value)
        }
        let result = Mutex<Result<SeriesIngestOutcome, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        store.ingest(series) { outcome in
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        switch result.withLock({ $0 })! {
        case .success(let outcome):
            var refused: [MQTTDropReason: Int] = [:]
            for refusal in outcome.refused {
                let reason: MQTTDropReason = switch refusal.error {
                case .sensorLimit: .sensorLimit
                case .notFinite: .notFinite
                case .valueType: .valueType
                }
                refused[reason, default: 0] += 1
            }
            return MQTTStoreOutcome(stored: outcome.accepted, refused: refused)
        case .failure:
            return MQTTStoreOutcome(stored: 0, refused: [.storeFailed: points.count])
        }
    }
}
