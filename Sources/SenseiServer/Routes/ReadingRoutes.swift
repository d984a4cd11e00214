import SenseiModels

/// A sensor's readings: listing, aggregating, CSV export and posting.
struct ReadingRoutes {
    let store: any ReadingStore & RollupStore
    let metrics: ServerMetrics
    static let maximumLimit = 10_000
    static let maximumBuckets = 2_000

    func addRoutes(to router: inout Router) {
        router.add("GET", "/sensors/:id/data", scope: .read) { request, parameters in
            try list(parameters["id"], request, format: .json)
        }
        router.add("GET", "/sensors/:id/data.csv", scope: .read) { request, parameters in
            try list(parameters["id"], request, format: .csv)
        }
        router.addDeferred("POST", "/sensors/:id/data", scope: .write) { request, parameters, reply in
            try post(parameters["id"], request, reply: reply)
        }
    }

    enum Format {
        case json
        case csv
    }

    private func list(_ segment: String, _ request: Request, format: Format) throws -> Response {
        let reference = try RequestDecoding.sensorReference(segment)
        let parameters = QueryParameters(request)
        let (after, before) = try parameters.bounds()
        if let count = try parameters.optionalInteger("buckets", in: 1...Self.maximumBuckets) {
            guard let after, let before else {
                throw APIError.badRequest("buckets needs both after and before")
            }
            let (_, buckets) = try store.buckets(of: reference, after: after, before: before, count: count)
            return format == .json ? ReadingEncoding.json(buckets, bytesEach: 100) : ReadingEncoding.csv(buckets)
        }
        let query = ReadingQuery(
            after: after, before: before,
            limit: try parameters.integer("limit", default: 100, in: 1...Self.maximumLimit),
            ascending: try parameters.ascending())
        let (_, readings) = try store.readings(of: reference, query)
        return format == .json ? ReadingEncoding.json(readings, bytesEach: 48) : ReadingEncoding.csv(readings)
    }

    /// Parsed and checked here; answered once the group commit holding the
    /// readings has synced (the worker thread serves others meanwhile).
    private func post(_ segment: String, _ request: Request, reply: @escaping Router.Reply) throws {
        let reference = try RequestDecoding.sensorReference(segment)
        let receivedAt = Timestamp.now()
        let readings: [ReadingInput]
        let isBatch: Bool
        if let scanned = ReadingScanner.scan(request.body, now: receivedAt) {
            (readings, isBatch) = scanned
        } else {
            // Any other shape, and every error, through the general parser.
            let body = try RequestDecoding.json(request)
            readings = try ReadingPayload.parse(body, now: receivedAt)
            isBatch = body["data"] != nil
        }
        store.insertReadings(readings, into: reference, createIfMissing: true, receivedAt: receivedAt) { result in
            reply(result.map { accepted in
                metrics.readingsAccepted(accepted)
                return .json(status: 201) { writer in
                    writer.beginObject()
                    writer.key("accepted")
                    writer.int(accepted)
                    writer.endObject()
                }
            }.mapError { error in
                // Name the item the way the client wrote it: a batch has indexes.
                guard case StoreError.invalidValue(let index, let reason) = error else { return error }
                return APIError.unprocessable(isBatch ? "data[\(index)].value: \(reason)" : "value: \(reason)")
            })
        }
    }
}
