import SenseiModels
import Synchronization

/// Sensors and their metadata.
struct SensorRoutes {
    let store: any SensorStore & AlertStore
    /// A deleted sensor takes its alert rules with it: the evaluator drops
    /// them and the live stream says so.
    let alerts: AlertService
    let streams: ReadingStreams
    /// The last `GET /sensors` body, its tag and the store's change count it was built at.
    private let listCache = ListCache()

    func addRoutes(to router: inout Router) {
        router.add("GET", "/sensors", scope: .read) { request, _ in try list(request) }
        router.add("POST", "/sensors", scope: .admin) { request, _ in try create(request) }
        router.add("GET", "/sensors/:id", scope: .read) { _, parameters in try show(parameters["id"]) }
        router.add("PATCH", "/sensors/:id", scope: .admin) { request, parameters in
            try update(parameters["id"], request)
        }
        router.add("DELETE", "/sensors/:id", scope: .admin) { _, parameters in try delete(parameters["id"]) }
    }

    /// Built once per change of the data, not once per request: dashboards
    /// poll this far more often than sensors change. A list filtered by
    /// labels is built each time.
    ///
    /// Tagged with a hash of the body (`ETag`): a client that sends the tag
    /// back in `If-None-Match` gets `304` and no body while the list is the
    /// same. Of the body, not of the change count: commits that leave the
    /// list as it was (a token's last use, alert states, compaction) would
    /// otherwise make every other poll a full answer.
    private func list(_ request: Request) throws -> Response {
        let filter = try RequestDecoding.labelFilter(request)
        // Read the count first: a write landing in between only makes the
        // cached body newer than its count, never older.
        let changes = store.changeCount
        let body: [UInt8]
        let tag: String
        if filter.isEmpty, let cached = listCache.entry(at: changes) {
            (body, tag) = cached
        } else {
            body = try listResponse(labeled: filter).body
            tag = EntityTag.of(body)
            if filter.isEmpty { listCache.keep(body, tag: tag, at: changes) }
        }
        if let held = request.ifNoneMatch, EntityTag.matches(held, tag) {
            return Response(status: 304, headers: [("ETag", tag)])
        }
        return Response(status: 200, headers: [("Content-Type", Response.jsonType), ("ETag", tag)], body: body)
    }

    /// `{"sensors":[…]}`, each sensor written as the store reads it.
    private func listResponse(labeled filter: [(key: String, value: String)]) throws -> Response {
        try Response.json(capacity: listCache.expectedSize) { writer in
            writer.beginObject()
            writer.key("sensors")
            writer.beginArray()
            try store.forEachSensor(labeled: filter) { $0.write(to: &writer) }
            writer.endArray()
            writer.endObject()
        }
    }

    private func show(_ segment: String) throws -> Response {
        let reference = try RequestDecoding.sensorReference(segment)
        guard let sensor = try store.sensor(reference) else { throw StoreError.sensorNotFound(reference) }
        return .json { sensor.write(to: &$0) }
    }

    private func create(_ request: Request) throws -> Response {
        let body = try RequestDecoding.json(request)
        guard let object = body.objectValue else {
            throw APIError.unprocessable("body must be a JSON object, found \(body.typeName)")
        }
        try RequestDecoding.requireOnly(["code", "name", "units", "valueType", "retentionDays", "labels", "kind"],
                                        in: object)
        guard let code = try RequestDecoding.string("code", in: object, maximumLength: 1000) else {
            throw APIError.unprocessable("code is missing")
        }
        if let problem = SensorCode.problem(with: code) { throw APIError.unprocessable(problem) }
        let sensor = try store.createSensor(
            code: code,
            name: try RequestDecoding.string("name", in: object, maximumLength: 200, allowEmpty: false),
            units: try RequestDecoding.string("units", in: object, maximumLength: 50) ?? "",
            valueType: try RequestDecoding.valueType(in: object) ?? .float,
            retentionDays: try RequestDecoding.retentionDays(in: object) ?? nil,
            labels: try RequestDecoding.labels(in: object) ?? [:], kind: try RequestDecoding.kind(in: object) ?? .gauge,
            at: .now())
        return .json(status: 201) { sensor.write(to: &$0) }
    }

    private func update(_ segment: String, _ request: Request) throws -> Response {
        let reference = try RequestDecoding.sensorReference(segment)
        let body = try RequestDecoding.json(request)
        guard let object = body.objectValue else {
            throw APIError.unprocessable("body must be a JSON object, found \(body.typeName)")
        }
        try RequestDecoding.requireOnly(["name", "units", "valueType", "retentionDays", "labels", "kind"], in: object)
        let sensor = try store.updateSensor(
            reference,
            name: try RequestDecoding.string("name", in: object, maximumLength: 200, allowEmpty: false),
            units: try RequestDecoding.string("units", in: object, maximumLength: 50),
            valueType: try RequestDecoding.valueType(in: object),
            retentionDays: try RequestDecoding.retentionDays(in: object),
            labels: try RequestDecoding.labelPatch(in: object), kind: try RequestDecoding.kind(in: object), at: .now())
        return .json { sensor.write(to: &$0) }
    }

    private func delete(_ segment: String) throws -> Response {
        let reference = try RequestDecoding.sensorReference(segment)
        guard let sensor = try store.sensor(reference) else { throw StoreError.sensorNotFound(reference) }
        let rules = try store.alerts().filter { $0.rule.sensorID == sensor.id }.map(\.id)
        try store.deleteSensor(.id(sensor.id))
        for id in rules {
            streams.publish(.deleted(id, sensorID: sensor.id))
            try alerts.evaluator.refresh(id: id)
        }
        return .noContent
    }
}

private final class ListCache: Sendable {
    private struct State {
        var changes: UInt64 = 0
        var body: [UInt8]?
        var tag = ""
        /// The last body's size, kept when the body is let go.
        var size = 0
    }

    private let state = Mutex(State())

    /// The body built at `changes`, or nil; a stale body is let go at once,
    /// before its successor is built beside it (each is megabytes with
    /// thousands of sensors).
    func entry(at changes: UInt64) -> (body: [UInt8], tag: String)? {
        state.withLock { state in
            if state.changes != changes { state.body = nil }
            return state.body.map { ($0, state.tag) }
        }
    }

    func keep(_ body: [UInt8], tag: String, at changes: UInt64) {
        state.withLock { $0 = State(changes: changes, body: body, tag: tag, size: body.count) }
    }

    /// What the next body reserves, so it is written without growing (a
    /// growth copies the whole body so far).
    var expectedSize: Int {
        state.withLock { $0.size } + 4096
    }
}
