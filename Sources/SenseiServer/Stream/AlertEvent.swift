import SenseiModels

/// A change of an alert rule as the live stream tells it (`event: alert`):
/// `{"change":"state|created|changed|deleted","alert":{…}}`, the rule as
/// `GET /alerts/<id>` serves it, or only `{"id":N}` once deleted. It goes to
/// the listeners watching every sensor or the rule's sensor, right after the
/// change is committed, so a dashboard shows a firing rule when it fires
/// instead of at its next sync.
struct AlertEvent: Sendable {
    enum Change: String, Sendable {
        /// The rule's state moved (ok, pending, firing), by a reading or the timer.
        case state
        /// `POST /alerts`.
        case created
        /// `PATCH /alerts/<id>`.
        case changed
        /// `DELETE /alerts/<id>`.
        case deleted
    }

    let change: Change
    let ruleID: Int64
    /// The rule served; nil for `deleted`.
    let alert: StoredAlert?
    /// The sensors whose listeners get it: the rule's (before and after a
    /// change that moved it to another sensor).
    let sensorIDs: Set<Int64>

    init(_ change: Change, _ alert: StoredAlert, alsoSensor previous: Int64? = nil) {
        self.change = change
        ruleID = alert.id
        self.alert = alert
        sensorIDs = Set([alert.rule.sensorID] + (previous.map { [$0] } ?? []))
    }

    static func deleted(_ ruleID: Int64, sensorID: Int64) -> AlertEvent {
        AlertEvent(change: .deleted, ruleID: ruleID, alert: nil, sensorIDs: [sensorID])
    }

    private init(change: Change, ruleID: Int64, alert: StoredAlert?, sensorIDs: Set<Int64>) {
        self.change = change
        self.ruleID = ruleID
        self.alert = alert
        self.sensorIDs = sensorIDs
    }

    /// The server-sent event, `event: alert` and its `data:` line.
    var bytes: [UInt8] {
        var writer = JSONWriter(capacity: 512)
        writer.beginObject()
        writer.key("change")
        writer.string(change.rawValue)
        writer.key("alert")
        if let alert {
            alert.write(to: &writer)
        } else {
            writer.beginObject()
            writer.key("id")
            writer.int(ruleID)
            writer.endObject()
        }
        writer.endObject()
        var bytes = Array("event: alert\ndata: ".utf8)
        bytes.append(contentsOf: writer.bytes)
        bytes.append(contentsOf: "\n\n".utf8)
        return bytes
    }
}

extension AlertEvent {
    /// An alert event as it travels to the other nodes on one database
    /// (`NodeEvent.alert`): what their streams send, to whom, and whether the
    /// rule itself changed (the lease holder's evaluator then reloads it).
    struct Relayed: Sendable {
        let ruleID: Int64
        let isRuleChange: Bool
        let sensorIDs: Set<Int64>
        let bytes: [UInt8]
    }

    var relayed: Relayed { Relayed(ruleID: ruleID, isRuleChange: change != .state, sensorIDs: sensorIDs, bytes: bytes) }
}
