import SenseiModels

/// Reading what clients send: JSON bodies, sensor references in paths, and
/// the errors both can give.
enum RequestDecoding {
    /// The body as JSON, whatever type it declares (`curl -d` declares a form;
    /// some device libraries declare nothing). A body that is not JSON is a 400,
    /// or a 415 when it also declared a type other than JSON.
    static func json(_ request: Request) throws(APIError) -> JSONValue {
        guard !request.body.isEmpty else { throw .badRequest("request body is empty; send a JSON object") }
        do {
            return try JSONParser.parse(request.body)
        } catch {
            if let type = request.contentType, !isJSONType(type) {
                throw .unsupportedMediaType(type)
            }
            throw .badRequest("malformed JSON: \(error)")
        }
    }

    private static func isJSONType(_ contentType: String) -> Bool {
        let mediaType = contentType.split(separator: ";").first.map { $0.trimmingWhitespace().lowercased() } ?? ""
        return mediaType == "application/json" || mediaType.hasSuffix("+json") || mediaType.isEmpty
    }

    /// The `<id>` of a path: digits are an id, anything else must be a valid code.
    static func sensorReference(_ segment: String) throws(APIError) -> SensorReference {
        let reference = SensorReference(pathSegment: segment)
        if case .code(let code) = reference, let problem = SensorCode.problem(with: code) {
            throw .badRequest("invalid sensor id or code: \(problem)")
        }
        return reference
    }

    /// Checks a JSON object holds only `allowed` keys.
    static func requireOnly(_ allowed: [String], in object: [String: JSONValue]) throws(APIError) {
        for key in object.keys.sorted() where !allowed.contains(key) {
            throw .unprocessable("unknown field '\(key)'; expected \(allowed.joined(separator: ", "))")
        }
    }

    /// An optional string field of at most `maximumLength` characters.
    static func string(_ name: String, in object: [String: JSONValue], maximumLength: Int,
                       allowEmpty: Bool = true) throws(APIError) -> String? {
        guard let value = object[name], !value.isNull else { return nil }
        guard let string = value.stringValue else {
            throw .unprocessable("\(name) must be a string, found \(value.typeName)")
        }
        guard string.count <= maximumLength else {
            throw .unprocessable("\(name) is longer than \(maximumLength) characters")
        }
        guard allowEmpty || !string.isEmpty else { throw .unprocessable("\(name) must not be empty") }
        // SQLite would store text only up to a NUL: refuse it rather than cut it.
        guard !string.utf8.contains(0) else { throw .unprocessable("\(name) must not contain NUL (\\u0000)") }
        return string
    }

    static func valueType(in object: [String: JSONValue]) throws(APIError) -> ValueType? {
        guard let text = try string("valueType", in: object, maximumLength: 10) else { return nil }
        guard let type = ValueType(rawValue: text) else {
            throw .unprocessable("valueType must be one of float, int, bool; found '\(text)'")
        }
        return type
    }

    /// `kind`: nil when absent or null (it stays), else `gauge` or `counter`.
    static func kind(in object: [String: JSONValue]) throws(APIError) -> SensorKind? {
        guard let text = try string("kind", in: object, maximumLength: 10) else { return nil }
        guard let kind = SensorKind(rawValue: text) else {
            let names = SensorKind.allCases.map(\.rawValue).joined(separator: ", ")
            throw .unprocessable("kind must be one of \(names); found '\(text)'")
        }
        return kind
    }
}

extension RequestDecoding {
    /// `retentionDays`: nil when absent, `.some(nil)` when null (keep the
    /// readings forever), else whole days from 1 to `Sensor.maximumRetentionDays`.
    static func retentionDays(in object: [String: JSONValue]) throws(APIError) -> Int?? {
        guard let value = object["retentionDays"] else { return .none }
        if value.isNull { return .some(nil) }
        let rule = "a whole number of days from 1 to \(Sensor.maximumRetentionDays), or null to keep readings forever"
        guard value.doubleValue != nil else {
            throw .unprocessable("retentionDays must be \(rule); found \(value.typeName)")
        }
        guard let days = value.intValue, (1...Sensor.maximumRetentionDays).contains(days) else {
            throw .unprocessable("retentionDays must be \(rule); found \(value.serialized)")
        }
        return days
    }
}

extension StoreError {
    /// The API's answer to a store refusal.
    var apiError: APIError {
        switch self {
        case .sensorNotFound: .notFound(description)
        case .codeTaken, .tokenNameTaken: .conflict(description)
        case .invalidValue, .tooManyLabels: .unprocessable(description)
        // 403: the request is valid, the server refuses it by policy until
        // an admin acts; repeating it will not help.
        case .sensorLimit: .forbidden(description)
        case .notASenseiDatabase, .newerSchema: .internalError
        }
    }
}
