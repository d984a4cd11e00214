import SenseiModels

/// The query parameters of reading lists, checked: a bad one is a 400 that
/// names it and says what would be accepted.
struct QueryParameters {
    let query: [String: String]

    init(_ request: Request) {
        query = request.query
    }

    func integer(_ name: String, default value: Int, in range: ClosedRange<Int>) throws(APIError) -> Int {
        guard let text = query[name] else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw .badRequest("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return number
    }

    /// `integer`, except that a whole number above the range (however many
    /// digits) is the range's top: the seed server clamped `per` so.
    func integer(_ name: String, default value: Int, in range: ClosedRange<Int>,
                 clampingAbove: Bool) throws(APIError) -> Int {
        if clampingAbove, let text = query[name], !text.isEmpty, text.utf8.allSatisfy({ ($0 &- 48) < 10 }),
           (Int(text) ?? .max) > range.upperBound {
            return range.upperBound
        }
        return try integer(name, default: value, in: range)
    }

    func optionalInteger(_ name: String, in range: ClosedRange<Int>) throws(APIError) -> Int? {
        guard query[name] != nil else { return nil }
        return try integer(name, default: 0, in: range)
    }

    /// `level`, required: `minute` or `hour`.
    func rollupLevel() throws(APIError) -> RollupLevel {
        guard let text = query["level"], let level = RollupLevel(name: text) else {
            throw .badRequest("level must be minute or hour, not '\(query["level"] ?? "")'")
        }
        return level
    }

    func timestamp(_ name: String) throws(APIError) -> Timestamp? {
        guard let text = query[name] else { return nil }
        guard let timestamp = Timestamp(parameter: text) else {
            throw .badRequest("\(name) must be an RFC 3339 time (2025-01-09T12:00:00Z) or epoch seconds, not '\(text)'")
        }
        return timestamp
    }

    /// `after` and `before`, inclusive, in order.
    func bounds() throws(APIError) -> (after: Timestamp?, before: Timestamp?) {
        let after = try timestamp("after")
        let before = try timestamp("before")
        if let after, let before, after > before {
            throw .badRequest("after (\(after)) is later than before (\(before))")
        }
        return (after, before)
    }

    /// `order=asc|desc`, newest first by default.
    func ascending() throws(APIError) -> Bool {
        switch query["order"]?.lowercased() {
        case nil, "desc": false
        case "asc": true
        case let other?: throw .badRequest("order must be asc or desc, not '\(other)'")
        }
    }
}
