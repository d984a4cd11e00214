// InfluxDB line protocol, read exactly as InfluxDB 1.x reads it (models/points.go:
// scanLine, scanKey, scanFields, scanNumber, scanBoolean, scanTime), so a client
// gets the same lines accepted and the same error texts. No imports and no I/O:
// fuzz/run.sh compiles this file on its own.
//
// Deliberate differences, all documented in docs/line-protocol.md:
// - unsigned integers (`12u`) are accepted, as in InfluxDB 2.x (1.x refuses them);
// - a timestamp finer than a millisecond is truncated (floored) to its millisecond,
//   Sensei's unit of time.
//
// The scan walks the bytes once and records spans (offsets into the body) in
// arrays kept by the parser and reused from line to line: nothing is allocated per
// field. Strings are made only when a caller asks for one (`string(_:)`).

/// The unit of a line's timestamp, named by the `precision` query parameter.
public enum LinePrecision: Sendable, Equatable {
    case nanoseconds, microseconds, milliseconds, seconds, minutes, hours

    /// 1.x (`/write`): absent or n, ns, u, us, µ, ms, s, m, h.
    public init?(v1 spelling: String?) {
        switch spelling ?? "" {
        case "", "n", "ns": self = .nanoseconds
        case "u", "us", "µ": self = .microseconds
        case "ms": self = .milliseconds
        case "s": self = .seconds
        case "m": self = .minutes
        case "h": self = .hours
        default: return nil
        }
    }

    /// 2.x (`/api/v2/write`): absent or ns, us, ms, s.
    public init?(v2 spelling: String?) {
        switch spelling ?? "" {
        case "", "ns": self = .nanoseconds
        case "us": self = .microseconds
        case "ms": self = .milliseconds
        case "s": self = .seconds
        default: return nil
        }
    }

    public var nanosecondsPerUnit: Int64 {
        switch self {
        case .nanoseconds: 1
        case .microseconds: 1_000
        case .milliseconds: 1_000_000
        case .seconds: 1_000_000_000
        case .minutes: 60_000_000_000
        case .hours: 3_600_000_000_000
        }
    }
}

/// A run of bytes in the body: `start..<end`.
public struct LineSpan: Sendable, Equatable {
    public var start: Int
    public var end: Int
    public var isEmpty: Bool { start == end }
    public var count: Int { end - start }
}

/// A field's value. A string's content is the field's `text` span, still escaped.
public enum LineFieldValue: Sendable, Equatable {
    case float(Double)
    case integer(Int64)
    case unsigned(UInt64)
    case boolean(Bool)
    case string
}

/// One parsed line, valid until the next line is parsed (its arrays are reused).
public struct LineProtocolLine: Sendable {
    public struct Tag: Sendable { public var key: LineSpan; public var value: LineSpan }
    public struct Field: Sendable {
        public var key: LineSpan
        public var value: LineFieldValue
        /// The value as written; for a string, its content between the quotes.
        public var text: LineSpan
    }

    /// The whole line as sent (for error texts).
    public var line = LineSpan(start: 0, end: 0)
    /// Measurement and tags as written: the same bytes name the same series.
    public var key = LineSpan(start: 0, end: 0)
    public var measurement = LineSpan(start: 0, end: 0)
    /// Sorted by key bytes, as InfluxDB keys a series; keys are unique.
    public var tags: [Tag] = []
    public var fields: [Field] = []
    /// Milliseconds since the epoch (floored); nil when the line has none.
    public var timestamp: Int64?
}

/// A line InfluxDB would refuse, with InfluxDB's message.
public struct LineProtocolError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The line as sent, after leading whitespace.
    public var line: String
    public var message: String
    /// InfluxDB's text: `unable to parse '<line>': <message>`.
    public var description: String { "unable to parse '\(line)': \(message)" }
}

public struct LineProtocolParser {
    /// InfluxDB's limit on the measurement and tags of one series (bytes).
    public static let maximumKeyLength = 65_535
    // InfluxDB's time range in nanoseconds (models.MinNanoTime, MaxNanoTime).
    static let minimumNanoseconds = Int64.min + 2
    static let maximumNanoseconds = Int64.max - 1

    public let precision: LinePrecision
    private var current = LineProtocolLine()

    public init(precision: LinePrecision = .nanoseconds) {
        self.precision = precision
        current.tags.reserveCapacity(16)
        current.fields.reserveCapacity(16)
    }

    /// Parses every line of `body`: `accept` sees each good line (comments and
    /// blank lines are skipped), `refuse` each bad one, in order.
    public mutating func parse(_ body: UnsafeBufferPointer<UInt8>,
                               accept: (LineProtocolLine) throws -> Void,
                               refuse: (LineProtocolError) throws -> Void) rethrows {
        var position = 0
        while position < body.count {
            let end = Self.scanLine(body, position)
            var start = position
            position = end + 1
            start = Self.skipWhitespace(body, start, end)
            if start >= end || body[start] == UInt8(ascii: "#") { continue }
            if let message = parseLine(body, start, end) {
                try refuse(LineProtocolError(line: String(decoding: UnsafeBufferPointer(rebasing: body[start..<end]),
                                                          as: UTF8.self), message: message))
            } else {
                try accept(current)
            }
        }
    }

    /// Parses one line into `current`; the error message when it is bad.
    private mutating func parseLine(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> String? {
        current.line = LineSpan(start: start, end: end)
        // Only when not empty: even an empty removal costs a generic call.
        if !current.tags.isEmpty { current.tags.removeAll(keepingCapacity: true) }
        if !current.fields.isEmpty { current.fields.removeAll(keepingCapacity: true) }
        current.timestamp = nil
        var i = start
        if let message = scanKey(buf, &i, end) { return message }
        if current.key.count > Self.maximumKeyLength {
            return "max key length exceeded: \(current.key.count) > \(Self.maximumKeyLength)"
        }
        if let message = scanFields(buf, &i, end) { return message }
        for field in current.fields {
            // tsm1's series key: the key, a 4-byte separator, the field key.
            let size = current.key.count + 4 + field.key.count
            if size > Self.maximumKeyLength { return "max key length exceeded: \(size) > \(Self.maximumKeyLength)" }
        }
        return scanTime(buf, &i, end)
    }

    // MARK: Lines

    /// Where the line starting at `i` ends: the next newline outside a quoted
    /// field value (a string field may hold newlines), or the end.
    static func scanLine(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int) -> Int {
        var i = start
        var quoted = false, inFields = false
        var equals = 0, commas = 0
        while i < buf.count {
            let byte = buf[i]
            if byte == UInt8(ascii: "\\") { i += 2; continue }
            if byte == UInt8(ascii: " ") { inFields = true }
            if inFields {
                if !quoted && byte == UInt8(ascii: "=") { i += 1; equals += 1; continue }
                if !quoted && byte == UInt8(ascii: ",") { i += 1; commas += 1; continue }
                if byte == UInt8(ascii: "\"") && equals > commas { i += 1; quoted.toggle(); continue }
            }
            if byte == UInt8(ascii: "\n") && !quoted { break }
            i += 1
        }
        return min(i, buf.count)
    }

    static func skipWhitespace(_ buf: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Int {
        var i = start
        while i < end, buf[i] == UInt8(ascii: " ") || buf[i] == UInt8(ascii: "\t") || buf[i] == 0 { i += 1 }
        return i
    }

    // MARK: Measurement and tags

    /// The measurement and tags; leaves `i` on the space before the fields.
    private mutating func scanKey(_ buf: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ end: Int) -> String? {
        let start = i
        if i >= end || buf[i] == UInt8(ascii: ",") { return "missing measurement" }
        // The byte before decides escaping, as in InfluxDB (so `a\\,b` escapes the comma too).
        var hasTags = false
        while true {
            i += 1
            if i >= end { return "missing fields" }
            if buf[i - 1] == UInt8(ascii: "\\") { continue }
            if buf[i] == UInt8(ascii: ",") { hasTags = true; break }
            if buf[i] == UInt8(ascii: " ") { break }
        }
        current.measurement = LineSpan(start: start, end: i)
        if hasTags {
            i += 1
            if let message = scanTags(buf, &i, end) { return message }
        }
        current.key = LineSpan(start: start, end: i)
        return sortTags(buf)
    }

    private mutating func scanTags(_ buf: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ end: Int) -> String? {
        while true {
            // The key: up to an unescaped `=`.
            let keyStart = i
            if i >= end || buf[i] == UInt8(ascii: " ") || buf[i] == UInt8(ascii: ",") || buf[i] == UInt8(ascii: "=") {
                return "missing tag key"
            }
            while true {
                i += 1
                if i >= end { return "missing tag value" }
                let escaped = buf[i - 1] == UInt8(ascii: "\\")
                if (buf[i] == UInt8(ascii: " ") || buf[i] == UInt8(ascii: ",")) && !escaped { return "missing tag value" }
                if buf[i] == UInt8(ascii: "=") && !escaped { break }
            }
            let key = LineSpan(start: keyStart, end: i)
            i += 1
            // The value: up to an unescaped `,` (another tag) or space (the fields).
            let valueStart = i
            if i >= end || buf[i] == UInt8(ascii: ",") || buf[i] == UInt8(ascii: " ") { return "missing tag value" }
            while true {
                i += 1
                if i >= end { return "missing fields" }
                let escaped = buf[i - 1] == UInt8(ascii: "\\")
                if buf[i] == UInt8(ascii: "=") && !escaped { return "invalid tag format" }
                if buf[i] == UInt8(ascii: ",") && !escaped {
                    current.tags.append(.init(key: key, value: LineSpan(start: valueStart, end: i)))
                    i += 1
                    break
                }
                if buf[i] == UInt8(ascii: " ") && !escaped {
                    current.tags.append(.init(key: key, value: LineSpan(start: valueStart, end: i)))
                    return nil
                }
            }
        }
    }

    /// Tags in key order (insertion sort: lines have few tags, usually sorted
    /// already); two tags with one key make the line bad.
    private mutating func sortTags(_ buf: UnsafeBufferPointer<UInt8>) -> String? {
        let tags = current.tags
        guard tags.count > 1 else { return nil }
        var sorted = true
        for index in 1..<tags.count where Self.compare(buf, tags[index - 1].key, tags[index].key) >= 0 {
            sorted = false
            break
        }
        if !sorted {
            for index in 1..<current.tags.count {
                var j = index
                while j > 0 && Self.compare(buf, current.tags[j].key, current.tags[j - 1].key) < 0 {
                    current.tags.swapAt(j, j - 1)
                    j -= 1
                }
            }
        }
        for index in 1..<current.tags.count where Self.compare(buf, current.tags[index - 1].key, current.tags[index].key) == 0 {
            return "duplicate tags"
        }
        return nil
    }

    static func compare(_ buf: UnsafeBufferPointer<UInt8>, _ a: LineSpan, _ b: LineSpan) -> Int {
        var i = a.start, j = b.start
        while i < a.end && j < b.end {
            if buf[i] != buf[j] { return buf[i] < buf[j] ? -1 : 1 }
            i += 1
            j += 1
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    // MARK: Fields

    /// The fields, checked as InfluxDB checks them; leaves `i` after them.
    private mutating func scanFields(_ buf: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ end: Int) -> String? {
        i = Self.skipWhitespace(buf, i, end)
        var quoted = false
        var equals = 0, commas = 0
        var keyStart = i
        var stringStart = 0
        var stringKey = LineSpan(start: 0, end: 0)
        while i < end {
            let byte = buf[i]
            if byte == UInt8(ascii: "\\") && i + 1 < end { i += 2; continue }
            if byte == UInt8(ascii: "\"") && equals > commas {
                quoted.toggle()
                if quoted {
                    stringStart = i + 1
                } else {
                    current.fields.append(.init(key: stringKey, value: .string, text: LineSpan(start: stringStart, end: i)))
                }
                i += 1
                continue
            }
            if byte == UInt8(ascii: "=") && !quoted {
                equals += 1
                if buf[i - 1] == UInt8(ascii: " ") && buf[i - 2] != UInt8(ascii: "\\") { return "missing field key" }
                if buf[i - 1] == UInt8(ascii: ",") && buf[i - 2] != UInt8(ascii: "\\") { return "missing field key" }
                if i + 1 >= end { return "missing field value" }
                let next = buf[i + 1]
                if next == UInt8(ascii: ",") || next == UInt8(ascii: " ") { return "missing field value" }
                let key = LineSpan(start: keyStart, end: i)
                if Self.isNumeric(next) || next == UInt8(ascii: "-") || next == UInt8(ascii: "N") || next == UInt8(ascii: "n") {
                    let valueStart = i + 1
                    switch Self.scanNumber(buf, &i, valueStart, end) {
                    case .success(let value):
                        current.fields.append(.init(key: key, value: value, text: LineSpan(start: valueStart, end: i)))
                    case .failure(let message):
                        return message.text
                    }
                    continue
                }
                if next != UInt8(ascii: "\"") {
                    let valueStart = i + 1
                    guard let value = Self.scanBoolean(buf, &i, valueStart, end) else { return "invalid boolean" }
                    current.fields.append(.init(key: key, value: .boolean(value), text: LineSpan(start: valueStart, end: i)))
                    continue
                }
                stringKey = key
            }
            if byte == UInt8(ascii: ",") && !quoted {
                commas += 1
                keyStart = i + 1
            }
            if byte == UInt8(ascii: " ") && !quoted { break }
            i += 1
        }
        if quoted { return "unbalanced quotes" }
        // Every section needs a key and a value ("a=1,b" is bad).
        if equals == 0 || commas != equals - 1 { return "invalid field format" }
        return nil
    }

    static func isNumeric(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: ".")
    }

    struct NumberError: Error { var text: String }

    /// A float, `i` integer or `u` unsigned starting at `start`; leaves `i` after it.
    static func scanNumber(_ buf: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ start: Int, _ end: Int)
        -> Result<LineFieldValue, NumberError> {
        let invalid = Result<LineFieldValue, NumberError>.failure(NumberError(text: "invalid number"))
        i = start
        var isInt = false, isUnsigned = false, decimal = false, scientific = false
        if i < end && buf[i] == UInt8(ascii: "-") {
            i += 1
            if i == end { return invalid }
        }
        while i < end {
            let byte = buf[i]
            if byte == UInt8(ascii: ",") || byte == UInt8(ascii: " ") { break }
            if byte == UInt8(ascii: "i") && i > start && !(isInt || isUnsigned) { isInt = true; i += 1; continue }
            if byte == UInt8(ascii: "u") && i > start && !(isInt || isUnsigned) { isUnsigned = true; i += 1; continue }
            if byte == UInt8(ascii: ".") {
                if decimal { return invalid }
                decimal = true
            }
            if i > start && (byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")) { scientific = true; i += 1; continue }
            if (byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-"))
                && (buf[i - 1] == UInt8(ascii: "e") || buf[i - 1] == UInt8(ascii: "E")) { i += 1; continue }
            if !isNumeric(byte) { return invalid }
            i += 1
        }
        if (isInt || isUnsigned) && (decimal || scientific) { return invalid }
        var digits = i - start
        if isInt || isUnsigned { digits -= 1 }
        if decimal { digits -= 1 }
        if buf[start] == UInt8(ascii: "-") { digits -= 1 }
        if digits <= 0 { return invalid }
        let text = LineSpan(start: start, end: i)
        if isInt {
            // The suffix must end the number (`9i10` is bad).
            guard buf[i - 1] == UInt8(ascii: "i") else { return invalid }
            let digitsSpan = LineSpan(start: start, end: i - 1)
            guard let value = parseInt64(buf, digitsSpan) else {
                let written = string(buf, digitsSpan)
                return .failure(NumberError(text: "unable to parse integer \(written): strconv.ParseInt: parsing \"\(written)\": value out of range"))
            }
            return .success(.integer(value))
        }
        if isUnsigned {
            guard buf[i - 1] == UInt8(ascii: "u"), buf[start] != UInt8(ascii: "-") else { return invalid }
            let digitsSpan = LineSpan(start: start, end: i - 1)
            guard let value = parseUInt64(buf, digitsSpan) else {
                let written = string(buf, digitsSpan)
                return .failure(NumberError(text: "unable to parse unsigned \(written): strconv.ParseUint: parsing \"\(written)\": value out of range"))
            }
            return .success(.unsigned(value))
        }
        guard let value = parseDouble(buf, text), value.isFinite else { return .failure(NumberError(text: "invalid float")) }
        return .success(.float(value))
    }

    /// t, T, true, True, TRUE, f, F, false, False, FALSE; leaves `i` after it.
    static func scanBoolean(_ buf: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ start: Int, _ end: Int) -> Bool? {
        i = start
        let first = buf[start]
        guard first == UInt8(ascii: "t") || first == UInt8(ascii: "f") || first == UInt8(ascii: "T")
            || first == UInt8(ascii: "F") else { return nil }
        i += 1
        while i < end && buf[i] != UInt8(ascii: ",") && buf[i] != UInt8(ascii: " ") { i += 1 }
        let isTrue = first == UInt8(ascii: "t") || first == UInt8(ascii: "T")
        if i - start == 1 { return isTrue }
        let word = UnsafeBufferPointer(rebasing: buf[start..<i])
        let matches = isTrue
            ? spelled(word, "true") || spelled(word, "True") || spelled(word, "TRUE")
            : spelled(word, "false") || spelled(word, "False") || spelled(word, "FALSE")
        return matches ? isTrue : nil
    }

    private static func spelled(_ word: UnsafeBufferPointer<UInt8>, _ spelling: StaticString) -> Bool {
        spelling.utf8CodeUnitCount == word.count && spelling.withUTF8Buffer { $0.elementsEqual(word) }
    }

    // MARK: Timestamp

    /// The optional timestamp and nothing but spaces after it.
    private mutating func scanTime(_ buf: UnsafeBufferPointer<UInt8>, _ i: inout Int, _ end: Int) -> String? {
        let start = Self.skipWhitespace(buf, i, end)
        i = start
        while i < end && buf[i] != UInt8(ascii: "\n") && buf[i] != UInt8(ascii: " ") {
            if !(i == start && buf[i] == UInt8(ascii: "-")) && (buf[i] < UInt8(ascii: "0") || buf[i] > UInt8(ascii: "9")) {
                return "bad timestamp"
            }
            i += 1
        }
        guard i > start else { return nil }
        let span = LineSpan(start: start, end: i)
        guard let value = Self.parseInt64(buf, span) else {
            let written = Self.string(buf, span)
            let reason = span.count == 1 ? "invalid syntax" : "value out of range"
            return "strconv.ParseInt: parsing \"\(written)\": \(reason)"
        }
        let (nanoseconds, overflow) = value.multipliedReportingOverflow(by: precision.nanosecondsPerUnit)
        guard !overflow, nanoseconds >= Self.minimumNanoseconds, nanoseconds <= Self.maximumNanoseconds else {
            return "time outside range \(Self.minimumNanoseconds) - \(Self.maximumNanoseconds)"
        }
        while i < end {
            if buf[i] != UInt8(ascii: " ") { return "point is invalid" }
            i += 1
        }
        // Floored to the millisecond: Sensei keeps milliseconds. (Not
        // SenseiModels' floorDivided: fuzz/run.sh compiles this file alone.)
        let (quotient, remainder) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000)
        current.timestamp = remainder < 0 ? quotient - 1 : quotient
        return nil
    }

    // MARK: Numbers and text

    /// Decimal digits with an optional `-`; nil past Int64 or when empty.
    static func parseInt64(_ buf: UnsafeBufferPointer<UInt8>, _ span: LineSpan) -> Int64? {
        let negative = span.start < span.end && buf[span.start] == UInt8(ascii: "-")
        guard let magnitude = parseUInt64(buf, LineSpan(start: span.start + (negative ? 1 : 0), end: span.end)) else {
            return nil
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    static func parseUInt64(_ buf: UnsafeBufferPointer<UInt8>, _ span: LineSpan) -> UInt64? {
        guard span.count > 0 else { return nil }
        var value: UInt64 = 0
        for i in span.start..<span.end {
            let digit = buf[i] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            // 19 digits cannot pass UInt64.max (a timestamp in nanoseconds
            // is 19 digits): only a 20th digit or later is checked.
            if i - span.start < 19 {
                value = value &* 10 &+ UInt64(digit)
                continue
            }
            let (times, o1) = value.multipliedReportingOverflow(by: 10)
            let (plus, o2) = times.addingReportingOverflow(UInt64(digit))
            if o1 || o2 { return nil }
            value = plus
        }
        return value
    }

    static let exactPowersOfTen: [Double] = (0...22).map { power in
        var value = 1.0
        for _ in 0..<power { value *= 10 }
        return value
    }

    /// A float as Go's ParseFloat reads the forms the scan lets through. Plain
    /// decimals of up to 15 digits are computed exactly (an integer mantissa
    /// and a power of ten both exact in a Double: correctly rounded, Clinger's
    /// fast path); anything else goes through the standard library.
    static func parseDouble(_ buf: UnsafeBufferPointer<UInt8>, _ span: LineSpan) -> Double? {
        var i = span.start
        let negative = buf[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        var mantissa: Int64 = 0
        var digits = 0
        var fraction = 0
        var seenPoint = false
        var simple = true
        while i < span.end {
            let byte = buf[i]
            if byte == UInt8(ascii: ".") {
                seenPoint = true
            } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                if mantissa != 0 || byte != UInt8(ascii: "0") { digits += 1 }
                if digits > 15 { simple = false; break }
                mantissa = mantissa * 10 + Int64(byte - UInt8(ascii: "0"))
                if seenPoint { fraction += 1 }
            } else {
                simple = false
                break
            }
            i += 1
        }
        if simple && fraction <= 22 {
            let value = Double(mantissa) / exactPowersOfTen[fraction]
            return negative ? -value : value
        }
        return Double(string(buf, span))
    }

    static func string(_ buf: UnsafeBufferPointer<UInt8>, _ span: LineSpan) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: buf[span.start..<span.end]), as: UTF8.self)
    }
}
