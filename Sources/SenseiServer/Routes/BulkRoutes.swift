import SenseiModels

/// Every sensor's readings (`GET /readings`) or aggregates (`GET /aggregates`)
/// in one paged read: what a dashboard's first sync of thousands of sensors
/// asks for, in a few requests instead of one a sensor.
///
/// `{"series":[{"id","code","data"|"aggregates":[…]}],"next":…}`: sensors in
/// id order, each oldest first, at most `limit` items a page; a sensor may be
/// split across pages. `next` (null at the end) is passed back as `cursor`
/// with the same other parameters.
struct BulkRoutes {
    let store: any ReadingStore & RollupStore
    static let defaultLimit = 10_000
    static let maximumLimit = 100_000

    func addRoutes(to router: inout Router) {
        router.add("GET", "/readings", scope: .read) { request, _ in try readings(request) }
        router.add("GET", "/aggregates", scope: .read) { request, _ in try aggregates(request) }
    }

    private func readings(_ request: Request) throws -> Response {
        let query = try Self.query(request)
        // A page's readings take about 51 bytes each: reserved at once, the
        // buffer is not copied as it grows (pages not written are never touched).
        var writer = JSONWriter(capacity: 64 + query.limit * 52)
        var series = SeriesWriter(items: "data")
        let next = try store.readingsOfEverySensor(query) { sensor, ts, value in
            series.item(of: sensor, in: &writer)
            Reading(timestamp: Timestamp(milliseconds: ts), value: value).write(to: &writer)
        }
        series.finish(next: next, in: &writer)
        return Response(status: 200, headers: [("Content-Type", Response.jsonType)], body: writer.bytes)
    }

    private func aggregates(_ request: Request) throws -> Response {
        let level = try QueryParameters(request).rollupLevel()
        let query = try Self.query(request)
        var writer = JSONWriter(capacity: 64 + min(query.limit, Self.defaultLimit) * 160)
        var series = SeriesWriter(items: "aggregates")
        let next = try store.aggregatesOfEverySensor(query, level: level) { sensor, aggregate in
            series.item(of: sensor, in: &writer)
            aggregate.write(to: &writer)
        }
        series.finish(next: next, in: &writer)
        return Response(status: 200, headers: [("Content-Type", Response.jsonType)], body: writer.bytes)
    }

    /// `after`, `before`, `limit`, `cursor` and `label`, checked.
    private static func query(_ request: Request) throws -> BulkQuery {
        let parameters = QueryParameters(request)
        let (after, before) = try parameters.bounds()
        var query = BulkQuery(after: after, before: before,
                              labels: try RequestDecoding.labelFilter(request),
                              limit: try parameters.integer("limit", default: defaultLimit, in: 1...maximumLimit))
        if let text = request.query["cursor"] {
            guard let cursor = BulkCursor(text) else {
                throw APIError.badRequest("cursor must be the 'next' of the previous page, not '\(text)'")
            }
            query.cursor = cursor
        }
        return query
    }
}

/// Writes `{"series":[…],"next":…}` as the items come, one sensor after
/// another, opening a sensor's object at its first item.
private struct SeriesWriter {
    let items: StaticString
    private var current: Int64?

    init(items: StaticString) {
        self.items = items
    }

    /// Before each item: opens the envelope, closes the previous sensor and
    /// opens this one, as needed.
    mutating func item(of sensor: BulkSensor, in writer: inout JSONWriter) {
        guard current != sensor.id else { return }
        closeSensorOrOpenEnvelope(in: &writer)
        current = sensor.id
        writer.beginObject()
        writer.key("id")
        writer.int(sensor.id)
        writer.key("code")
        writer.string(sensor.code)
        writer.key(items)
        writer.beginArray()
    }

    mutating func finish(next: BulkCursor?, in writer: inout JSONWriter) {
        closeSensorOrOpenEnvelope(in: &writer)
        writer.endArray()
        writer.key("next")
        if let next { writer.string(next.text) } else { writer.null() }
        writer.endObject()
    }

    /// Before the first sensor, the envelope; after one, its end.
    private func closeSensorOrOpenEnvelope(in writer: inout JSONWriter) {
        if current == nil {
            writer.beginObject()
            writer.key("series")
            writer.beginArray()
        } else {
            writer.endArray()
            writer.endObject()
        }
    }
}
