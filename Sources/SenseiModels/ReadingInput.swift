/// A reading as a device posts it, before the server stores it.
public struct ReadingInput: Sendable, Equatable {
    /// nil: the server's receive time.
    public var timestamp: Timestamp?
    public var value: Double

    public init(timestamp: Timestamp?, value: Double) {
        self.timestamp = timestamp
        self.value = value
    }
}

/// The rules for posted readings, shared by the v1 and the firmware routes.
public enum ReadingPayload {
    /// A device clock may run ahead of the server's by this much, no more.
    public static let maximumClockSkew: Int64 = 10 * 60 * 1000

    /// Reads `{"value": …, "timestamp": …}` or `{"data": [ … ]}`; any bad item
    /// fails the whole body with a 422 that names the item.
    public static func parse(_ body: JSONValue, now: Timestamp) throws(APIError) -> [ReadingInput] {
        guard let object = body.objectValue else {
            throw .unprocessable("body must be a JSON object with \"value\" or \"data\", found \(body.typeName)")
        }
        guard let data = object["data"] else {
            return [try reading(from: object, path: "", now: now)]
        }
        guard let items = data.arrayValue else {
            throw .unprocessable("data must be an array of readings, found \(data.typeName)")
        }
        guard !items.isEmpty else { throw .unprocessable("data holds no readings") }
        var readings: [ReadingInput] = []
        readings.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            guard let member = item.objectValue else {
                throw .unprocessable("data[\(index)] must be an object, found \(item.typeName)")
            }
            readings.append(try reading(from: member, path: "data[\(index)].", now: now))
        }
        return readings
    }

    private static func reading(from object: [String: JSONValue], path: String,
                                now: Timestamp) throws(APIError) -> ReadingInput {
        guard let valueJSON = object["value"] else { throw .unprocessable("\(path)value is missing") }
        let value: Double
        switch self.value(from: valueJSON) {
        case .success(let number): value = number
        case .failure(let problem): throw .unprocessable("\(path)value: \(problem.reason)")
        }
        var timestamp: Timestamp?
        if let timestampJSON = object["timestamp"], !timestampJSON.isNull {
            switch self.timestamp(from: timestampJSON, now: now) {
            case .success(let time): timestamp = time
            case .failure(let problem): throw .unprocessable("\(path)timestamp: \(problem.reason)")
            }
        }
        return ReadingInput(timestamp: timestamp, value: value)
    }

    /// A value: a JSON number, a numeric string (`"23.5"`, as firmware sends
    /// it, spaces allowed around), or a boolean as 1/0. Never NaN or infinity.
    public static func value(from json: JSONValue) -> Result<Double, Problem> {
        switch json {
        case .number(let number):
            return number.isFinite ? .success(number) : .failure(Problem("number is out of range"))
        case .bool(let flag):
            return .success(flag ? 1 : 0)
        case .string(let text):
            let trimmed = text.trimmingWhitespace()
            guard isDecimal(trimmed), let number = Double(trimmed) else {
                return .failure(Problem("\(quoted(text)) is not a number"))
            }
            return number.isFinite ? .success(number) : .failure(Problem("\(quoted(text)) is out of range"))
        default:
            return .failure(Problem("must be a number, a numeric string or a boolean, found \(json.typeName)"))
        }
    }

    /// A device timestamp: RFC 3339 or epoch seconds (number or digits),
    /// at most `maximumClockSkew` ahead of `now`.
    public static func timestamp(from json: JSONValue, now: Timestamp) -> Result<Timestamp, Problem> {
        let parsed: Timestamp?
        switch json {
        case .number(let seconds):
            // A number too big for a double arrives as infinity, which would be shown as null.
            guard seconds.isFinite else { return .failure(Problem("number is out of range")) }
            parsed = Timestamp(epochSeconds: seconds)
        case .string(let text): parsed = Timestamp(parameter: text)
        default: return .failure(Problem("must be an RFC 3339 string or epoch seconds, found \(json.typeName)"))
        }
        guard let timestamp = parsed else {
            let shown = json.stringValue.map(quoted) ?? json.serialized
            return .failure(Problem("\(shown) is not an RFC 3339 time or epoch seconds in years 1 to 9999"))
        }
        guard timestamp.milliseconds <= now.milliseconds + maximumClockSkew else {
            return .failure(Problem("\(timestamp) is more than 10 minutes ahead of the server clock (\(now))"))
        }
        return .success(timestamp)
    }

    public struct Problem: Error, Sendable, Equatable {
        public let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// `[+-]digits[.digits][e[+-]digits]`, also `.5` and `5.`: what devices print,
    /// and nothing Double(_:) would also take (hex, "nan", "inf").
    private static func isDecimal(_ text: Substring) -> Bool {
        var bytes = text.utf8[...]
        if let first = bytes.first, first == UInt8(ascii: "+") || first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        let integer = bytes.prefix { ($0 &- 48) < 10 }
        bytes = bytes.dropFirst(integer.count)
        var fraction = 0
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            fraction = bytes.prefix { ($0 &- 48) < 10 }.count
            bytes = bytes.dropFirst(fraction)
        }
        guard integer.count + fraction > 0 else { return false }
        if let e = bytes.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            let exponent = bytes.prefix { ($0 &- 48) < 10 }.count
            guard exponent > 0 else { return false }
            bytes = bytes.dropFirst(exponent)
        }
        return bytes.isEmpty
    }

    private static func quoted(_ text: String) -> String {
        let shown = text.count > 40 ? text.prefix(40) + "…" : Substring(text)
        var writer = JSONWriter()
        writer.string(String(shown))
        return writer.string
    }
}
