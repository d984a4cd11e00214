import SenseiModels

/// A change to an alert rule as `GET /stream` pushes it:
/// `event: alert` with `data: {"change":…,"alert":{…}}`, the rule as
/// `GET /alerts/<id>` serves it (only its id once deleted).
public enum AlertChange: Hashable, Sendable {
    /// The rule's state moved (ok, pending, firing): a reading or a silence did it.
    case state(AlertStatus)
    case created(AlertStatus)
    /// Edited (PATCH): name, threshold, … and possibly its state.
    case changed(AlertStatus)
    case deleted(id: Int64)

    /// The `data:` of an `alert` event.
    public init(json: JSONValue) throws(WireFormatError) {
        guard let change = json["change"]?.stringValue, let alert = json["alert"] else {
            throw WireFormatError("alert event without change and alert")
        }
        switch change {
        case "state": self = .state(try AlertStatus(json: alert))
        case "created": self = .created(try AlertStatus(json: alert))
        case "changed": self = .changed(try AlertStatus(json: alert))
        case "deleted":
            guard let id = alert["id"]?.intValue else { throw WireFormatError("deleted alert without id") }
            self = .deleted(id: Int64(id))
        default:
            throw WireFormatError("unknown alert change '\(change)'")
        }
    }

    /// The rule as it now stands; nil once deleted.
    public var rule: AlertStatus? {
        switch self {
        case .state(let rule), .created(let rule), .changed(let rule): rule
        case .deleted: nil
        }
    }

    public var id: Int64 {
        switch self {
        case .state(let rule), .created(let rule), .changed(let rule): rule.id
        case .deleted(let id): id
        }
    }
}

extension [AlertStatus] {
    /// The rules once `change` is applied: a rule known by its id is replaced
    /// in place, a new one joins at the end, a deleted one goes. The one
    /// rule for both the model and the cache, so the two never differ.
    public func applying(_ change: AlertChange) -> [AlertStatus] {
        var rules = self
        guard let rule = change.rule else {
            rules.removeAll { $0.id == change.id }
            return rules
        }
        if let index = rules.firstIndex(where: { $0.id == rule.id }) {
            rules[index] = rule
        } else {
            rules.append(rule)
        }
        return rules
    }
}
