import SenseiModels
import Synchronization

/// Alert rules (docs/design.md, "Alerts"): anyone with a token reads
/// them, only admin changes them. A change goes out on the live stream once
/// committed, before the evaluator takes it: a state event of the rule
/// (which needs the evaluator to know it) never comes before its `created`.
struct AlertRoutes {
    let store: any AlertStore & SensorStore
    let alerts: AlertService
    let streams: ReadingStreams

    func addRoutes(to router: inout Router) {
        router.add("GET", "/alerts", scope: .read) { _, _ in try list() }
        router.add("POST", "/alerts", scope: .admin) { request, _ in try create(request) }
        router.add("GET", "/alerts/:rule", scope: .read) { _, parameters in try show(parameters["rule"]) }
        router.add("PATCH", "/alerts/:rule", scope: .admin) { request, parameters in
            try update(parameters["rule"], request)
        }
        router.add("DELETE", "/alerts/:rule", scope: .admin) { _, parameters in try delete(parameters["rule"]) }
    }

    private func list() throws -> Response {
        let alerts = try served(store.alerts())
        return .json(capacity: 64 + alerts.count * 400) { $0.envelope("alerts", alerts) }
    }

    private func show(_ segment: String) throws -> Response {
        let id = try Self.id(segment)
        guard let alert = try store.alert(id: id) else { throw Self.notFound(segment) }
        return .json { served([alert])[0].write(to: &$0) }
    }

    private func create(_ request: Request) throws -> Response {
        let fields = try AlertRuleDecoding.fields(of: request)
        let rule = try AlertRuleDecoding.rule(fields, sensorID: try sensorID(fields.sensor), over: nil)
        let alert = try store.createAlert(rule, at: alerts.now())
        streams.publish(AlertEvent(.created, alert))
        try alerts.evaluator.refresh(id: alert.id)
        return .json(status: 201) { alert.write(to: &$0) }
    }

    private func update(_ segment: String, _ request: Request) throws -> Response {
        let id = try Self.id(segment)
        let fields = try AlertRuleDecoding.fields(of: request)
        let sensorID = try sensorID(fields.sensor)
        let previous = Mutex<Int64?>(nil)
        guard let alert = try store.updateAlert(id: id, at: alerts.now(), { old in
            previous.withLock { $0 = old.sensorID }
            return try AlertRuleDecoding.rule(fields, sensorID: sensorID, over: old)
        }) else { throw Self.notFound(segment) }
        // As stored: what the evaluator holds once it has taken the change.
        streams.publish(AlertEvent(.changed, alert, alsoSensor: previous.withLock { $0 }))
        try alerts.evaluator.refresh(id: id)
        return .json { served([alert])[0].write(to: &$0) }
    }

    private func delete(_ segment: String) throws -> Response {
        let id = try Self.id(segment)
        // Its sensor, for the stream's listeners of that sensor.
        let sensorID = try store.alert(id: id)?.rule.sensorID
        guard try store.deleteAlert(id: id) else { throw Self.notFound(segment) }
        if let sensorID { streams.publish(.deleted(id, sensorID: sensorID)) }
        try alerts.evaluator.refresh(id: id)
        return .noContent
    }

    /// Rules with the evaluator's state, which may be a commit ahead of the database's.
    private func served(_ stored: [StoredAlert]) -> [StoredAlert] {
        stored.map { alert in
            var alert = alert
            if let status = alerts.evaluator.status(of: alert.id) { alert.status = status }
            return alert
        }
    }

    /// An unknown sensor is a fault of the rule: 422, not 404.
    private func sensorID(_ reference: SensorReference?) throws -> Int64? {
        guard let reference else { return nil }
        guard let sensor = try store.sensor(reference) else {
            throw APIError.unprocessable("sensor: no sensor '\(reference)'")
        }
        return sensor.id
    }

    private static func id(_ segment: String) throws(APIError) -> Int64 {
        guard let id = Int64(segment), id > 0 else { throw notFound(segment) }
        return id
    }

    private static func notFound(_ segment: String) -> APIError { .notFound("no alert rule '\(segment)'") }
}
