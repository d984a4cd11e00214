import SenseiModels

/// The seed project's API, which deployed ESP32 firmware speaks. Its shapes
/// and messages are frozen: change nothing here that a device could notice.
struct LegacyRoutes {
    let store: any ReadingStore
    let metrics: ServerMetrics

    func addRoutes(to router: inout Router) {
        router.addDeferred("POST", "/sensor_data", scope: .write) { request, _, reply in try post(request, reply: reply) }
        router.add("GET", "/sensor_data/:code", scope: .read) { request, parameters in
            try list(parameters["code"], request)
        }
    }

    /// `{"sensor_code": "temperature_ext", "value": "23.5"}` → 201 `{"status":"ok"}`.
    private func post(_ request: Request, reply: @escaping Router.Reply) throws {
        let receivedAt = Timestamp.now()
        let body = try RequestDecoding.json(request)
        guard let code = body["sensor_code"]?.stringValue, !Self.isBlank(.string(code)),
              let valueJSON = body["value"], !Self.isBlank(valueJSON) else {
            throw APIError.badRequest("Missing sensor_code or value")
        }
        if let problem = SensorCode.problem(with: code) {
            throw APIError.unprocessable("sensor_code: \(problem)")
        }
        let value: Double
        switch ReadingPayload.value(from: valueJSON) {
        case .success(let number): value = number
        case .failure(let problem): throw APIError.unprocessable("value: \(problem.reason)")
        }
        store.insertReadings([ReadingInput(timestamp: nil, value: value)], into: .code(code),
                             createIfMissing: true, receivedAt: receivedAt) { result in
            reply(result.map { accepted in
                metrics.readingsAccepted(accepted)
                return .json(status: 201) { writer in
                    writer.beginObject()
                    writer.key("status")
                    writer.string("ok")
                    writer.endObject()
                }
            }.mapError { error in
                guard case StoreError.invalidValue(_, let reason) = error else { return error }
                return APIError.unprocessable("value: \(reason)")
            })
        }
    }

    /// What the seed's Rails `blank?` refused: null, false, a string of
    /// whitespace only (`""`, `"  "`), an empty array or object.
    static func isBlank(_ value: JSONValue) -> Bool {
        switch value {
        case .null, .bool(false): true
        case .string(let text): text.allSatisfy(\.isWhitespace)
        case .array(let items): items.isEmpty
        case .object(let members): members.isEmpty
        default: false
        }
    }

    /// A JSON array, newest first, paged by `page` (from 1) and `per` (default
    /// 50; a larger one is taken as 1000, as the seed did). A reading has no id of its own here, so `id` is its
    /// timestamp in epoch milliseconds, unique within the sensor.
    private func list(_ code: String, _ request: Request) throws -> Response {
        if let problem = SensorCode.problem(with: code) { throw APIError.badRequest(problem) }
        let parameters = QueryParameters(request)
        let (after, before) = try parameters.bounds()
        let per = try parameters.integer("per", default: 50, in: 1...1000, clampingAbove: true)
        let page = try parameters.integer("page", default: 1, in: 1...1_000_000)
        let (_, readings) = try store.readings(
            of: .code(code), ReadingQuery(after: after, before: before, limit: per, offset: (page - 1) * per))
        return .json(capacity: 16 + readings.count * 140) { writer in
            writer.beginArray()
            for reading in readings {
                writer.beginObject()
                writer.key("id")
                writer.int(reading.timestamp.milliseconds)
                writer.key("sensor_code")
                writer.string(code)
                writer.key("value")
                writer.string(formatNumber(reading.value))
                writer.key("created_at")
                writer.timestamp(reading.timestamp)
                writer.key("updated_at")
                writer.timestamp(reading.timestamp)
                writer.endObject()
            }
            writer.endArray()
        }
    }
}
