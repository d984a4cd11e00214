import Foundation
import SenseiModels

/// One page of a route that reads every sensor at once (`GET /readings`,
/// `GET /aggregates`): each sensor's items, sensors by id, and the cursor of
/// the next page (nil: the last).
public struct SeriesPage<Item: Sendable>: Sendable {
    public var series: [(sensorId: Int64, items: [Item])]
    public var next: String?

    public var itemCount: Int { series.reduce(0) { $0 + $1.items.count } }
}

extension APIClient {
    /// Items a bulk page may carry: ten times a sensor route's page, as one
    /// request stands for many sensors.
    public static let maximumBulkPageSize = 100_000

    /// `GET /readings`: every sensor's readings in [after, before] (inclusive;
    /// nil: unbounded), a page from `cursor` on; with `labels`, only the
    /// sensors carrying all of them.
    public func bulkReadings(after: Timestamp?, before: Timestamp? = nil, limit: Int, cursor: String?,
                             labels: [(key: String, value: String)] = []) async throws(SyncFailure)
        -> SeriesPage<Reading> {
        let query = bounds(after, before, limit, cursor) + labelQuery(labels)
        return try await page("/readings", key: "data", query: query) { item throws(WireFormatError) in
            try Reading(json: item)
        }
    }

    /// `GET /readings` as the bytes of its answer, for a reader that scans them itself.
    package func bulkReadingsBody(after: Timestamp?, before: Timestamp?, limit: Int, cursor: String?,
                          labels: [(key: String, value: String)]) async throws(SyncFailure) -> [UInt8] {
        let query = bounds(after, before, limit, cursor) + labelQuery(labels)
        // Gzip'ing a page costs the server more CPU than reading and writing
        // it, and this side the inflating: worth it over a network, not here.
        let answer = try await fetch("/readings", query: query, uncompressed: isLoopback)
        guard answer.status == 200 else { throw .invalidResponse("GET /readings: \(answer.status) without having asked") }
        return answer.bytes
    }

    /// `GET /aggregates?level=minute|hour`: every sensor's rows of the level
    /// starting in [after, before], a page from `cursor` on.
    public func bulkAggregates(level: String, after: Timestamp?, before: Timestamp?, limit: Int,
                               cursor: String?) async throws(SyncFailure) -> SeriesPage<SpanAggregate> {
        let query = [URLQueryItem(name: "level", value: level)] + bounds(after, before, limit, cursor)
        return try await page("/aggregates", key: "aggregates", query: query) { item throws(WireFormatError) in
            try SpanAggregate(json: item)
        }
    }

    private func labelQuery(_ labels: [(key: String, value: String)]) -> [URLQueryItem] {
        labels.map { URLQueryItem(name: "label", value: "\($0.key):\($0.value)") }
    }

    private func bounds(_ after: Timestamp?, _ before: Timestamp?, _ limit: Int, _ cursor: String?) -> [URLQueryItem] {
        var query = [URLQueryItem(name: "limit", value: String(min(max(1, limit), Self.maximumBulkPageSize)))]
        if let after { query.append(URLQueryItem(name: "after", value: after.rfc3339)) }
        if let before { query.append(URLQueryItem(name: "before", value: before.rfc3339)) }
        if let cursor { query.append(URLQueryItem(name: "cursor", value: cursor)) }
        return query
    }

    private func page<Item>(_ path: String, key: String, query: [URLQueryItem],
                            _ decode: (JSONValue) throws(WireFormatError) -> Item) async throws(SyncFailure)
        -> SeriesPage<Item> {
        let body = try await get(path, query: query)
        guard let series = body["series"]?.arrayValue else { throw .invalidResponse("GET \(path): no \"series\" array") }
        var page = SeriesPage<Item>(series: [], next: body["next"]?.stringValue)
        for entry in series {
            guard let id = entry["id"]?.intValue else { throw .invalidResponse("GET \(path): a series without an id") }
            page.series.append((Int64(id), try items(of: entry, key: key, route: path, decode)))
        }
        return page
    }
}
