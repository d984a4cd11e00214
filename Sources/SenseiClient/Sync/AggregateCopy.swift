import SenseiModels

/// Copies the server's rows of one level (`GET /sensors/<id>/aggregates`)
/// starting in [from, through] into the cache, a page a request, each page
/// replacing what the cache held over the times it covers. The backfill and
/// the audit both copy this way.
struct AggregateCopy {
    let client: APIClient
    let cache: SensorCache
    let pageSize: Int

    /// `mayRequest` is asked before each request (a budget, a counter); false
    /// stops the copy there. Returns the rows stored and whether it finished.
    func run(sensorId: Int64, level: RollupLevel, from: Int64, through: Int64,
             mayRequest: () -> Bool) async throws(SyncError) -> (stored: Int, complete: Bool) {
        var after = from, stored = 0
        while after <= through {
            guard mayRequest() else { return (stored, false) }
            let page: [SpanAggregate]
            do {
                page = try await client.aggregates(sensorId: sensorId, level: level.name,
                                                   after: Timestamp(milliseconds: after),
                                                   before: Timestamp(milliseconds: through), limit: pageSize)
            } catch {
                throw .server(error)
            }
            // A full page may have more after it: it covers up to its last row.
            let last = page.count >= pageSize ? page.last?.start.milliseconds : nil
            stored += try cacheStep {
                try cache.replaceAggregates(sensorId: sensorId, level: level, from: after, through: last ?? through,
                                            with: page)
            }
            guard let last else { return (stored, true) }
            after = last + 1
        }
        return (stored, true)
    }
}
