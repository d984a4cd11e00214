import SenseiModels

/// A sensor's minute and hour aggregates, paged oldest first: what a
/// dashboard keeps of history beyond its raw window, synced incrementally.
struct AggregateRoutes {
    let store: any RollupStore
    static let maximumLimit = 10_000

    func addRoutes(to router: inout Router) {
        router.add("GET", "/sensors/:id/aggregates", scope: .read) { request, parameters in
            try list(parameters["id"], request)
        }
    }

    private func list(_ segment: String, _ request: Request) throws -> Response {
        let reference = try RequestDecoding.sensorReference(segment)
        let parameters = QueryParameters(request)
        let level = try parameters.rollupLevel()
        let (after, before) = try parameters.bounds()
        let limit = try parameters.integer("limit", default: 1_000, in: 1...Self.maximumLimit)
        let (_, rows) = try store.aggregates(of: reference, level: level, after: after, before: before, limit: limit)
        return ReadingEncoding.json(rows, bytesEach: 160)
    }
}
