import SenseiModels

/// The store as the MQTT subscriber's sink: one call's points are one write
/// of the store's series ingest, so they share a group commit with whatever
/// else is committing, and the call returns once they are durable.
struct StoreMQTTSink: MQTTPointSink {
    let store: any ReadingStore

    func store(_ points: [MQTTPoint]) -> MQTTStoreOutcome {
        let series = points.map { point in
            SeriesPoint(series: Series(
                // The topic and the field tell every MQTT series apart: a plain
                // value's field is a function of its topic, a JSON leaf's is its key path.
                identity: SeriesIdentity(source: "mqtt", parts: [point.topic, point.field]),
                preferredCode: point.preferredCode, labels: point.labels, name: point.name, units: point.units,
                valueType: point.valueType, kind: point.kind), value: point.value)
        }
        guard case .success(var outcome) = Self.ingest(series, into: store) else {
            return MQTTStoreOutcome(stored: 0, refused: [.storeFailed: points.count])
        }
        var refused: [MQTTDropReason: Int] = [:]
        var limited: [SeriesPoint] = []
        for refusal in outcome.refused {
            switch refusal.error {
            case .sensorLimit: limited.append(series[refusal.index])
            case .notFinite: refused[.notFinite, default: 0] += 1
            case .valueType: refused[.valueType, default: 0] += 1
            }
        }
        // A call past --max-sensors creates none of its new series, but MQTT
        // messages are independent and a group is only what arrived together:
        // those refused are tried again one by one, in order, so a series
        // that fits alone is made whatever came with it. Only near the limit.
        if series.count > 1 {
            for point in limited {
                switch Self.ingest([point], into: store) {
                case .success(let alone):
                    outcome.accepted += alone.accepted
                    if !alone.refused.isEmpty { refused[.sensorLimit, default: 0] += 1 }
                case .failure:
                    refused[.storeFailed, default: 0] += 1
                }
            }
        } else if !limited.isEmpty {
            refused[.sensorLimit, default: 0] += limited.count
        }
        return MQTTStoreOutcome(stored: outcome.accepted, refused: refused)
    }

    /// One series-ingest call, waited for: it returns once the points are durable.
    private static func ingest(_ series: [SeriesPoint], into store: any ReadingStore) -> Result<SeriesIngestOutcome, any Error> {
        CommitWait.waitFor { completion in store.ingest(series, allOrNothing: false, receivedAt: .now(), completion: completion) }
    }
}
