/// The fast path for posted readings: reads the shapes devices send —
/// `{"value": …, "timestamp": …}` and `{"data": [{…}, …]}` — straight from
/// the body's bytes into `ReadingInput`s, without building a `JSONValue`
/// tree (a dictionary and two strings per reading, most of a batch's cost).
///
/// It gives up (nil) on anything else: other keys, repeated keys, escapes or
/// non-ASCII in strings, an empty batch, or any reading `ReadingPayload`
/// would refuse. The caller then runs the general parser, which accepts the
/// rest and explains every error, so answers never depend on the path taken.
/// Values and timestamps go through `ReadingPayload`'s own rules.
public enum ReadingScanner {
    public static func scan(_ body: [UInt8], now: Timestamp) -> (readings: [ReadingInput], isBatch: Bool)? {
        body.withUnsafeBufferPointer { bytes in
            var scanner = Scanner(bytes: bytes, now: now)
            return scanner.body()
        }
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        let now: Timestamp
        var position = 0

        init(bytes: UnsafeBufferPointer<UInt8>, now: Timestamp) {
            self.bytes = bytes
            self.now = now
        }

        mutating func body() -> (readings: [ReadingInput], isBatch: Bool)? {
            skipWhitespace()
            let start = position
            guard take(UInt8(ascii: "{")) else { return nil }
            skipWhitespace()
            if key() == .data {
                guard take(UInt8(ascii: ":")), let readings = batch(), take(UInt8(ascii: "}")), atEnd() else { return nil }
                return (readings, true)
            }
            position = start
            guard let reading = reading(), atEnd() else { return nil }
            return ([reading], false)
        }

        /// `[{…}, …]` with at least one reading.
        private mutating func batch() -> [ReadingInput]? {
            guard take(UInt8(ascii: "[")) else { return nil }
            var readings: [ReadingInput] = []
            // Readings are at least 11 bytes (`{"value":1}`): a bound for one allocation.
            readings.reserveCapacity(min(bytes.count / 12 + 1, 100_000))
            repeat {
                guard let reading = reading() else { return nil }
                readings.append(reading)
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "]")) ? readings : nil
        }

        /// `{"value": …, "timestamp": …}`, either order, timestamp optional.
        private mutating func reading() -> ReadingInput? {
            guard take(UInt8(ascii: "{")) else { return nil }
            var value: Double?
            var timestamp: Timestamp??
            repeat {
                switch key() {
                case .value where value == nil:
                    guard take(UInt8(ascii: ":")), let read = readingValue() else { return nil }
                    value = read
                case .timestamp where timestamp == nil:
                    guard take(UInt8(ascii: ":")), let read = readingTimestamp() else { return nil }
                    timestamp = .some(read)
                default:
                    return nil
                }
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "}")), let value else { return nil }
            return ReadingInput(timestamp: timestamp ?? nil, value: value)
        }

        private mutating func readingValue() -> Double? {
            guard let json = scalar(), case .success(let value) = ReadingPayload.value(from: json) else { return nil }
            return value
        }

        /// nil: not a timestamp the rules accept; `.some(nil)`: JSON null.
        private mutating func readingTimestamp() -> Timestamp?? {
            guard let json = scalar() else { return nil }
            if json.isNull { return .some(nil) }
            guard case .success(let timestamp) = ReadingPayload.timestamp(from: json, now: now) else { return nil }
            return .some(timestamp)
        }

        /// A number, a plain string, true, false or null; then the whitespace after it.
        private mutating func scalar() -> JSONValue? {
            guard position < bytes.count else { return nil }
            let json: JSONValue
            switch bytes[position] {
            case UInt8(ascii: "\""):
                guard let text = plainString() else { return nil }
                json = .string(String(decoding: text, as: UTF8.self))
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                guard let number = JSONNumber.read(bytes, at: &position) else { return nil }
                json = .number(number)
            case UInt8(ascii: "t") where literal("true"): json = .bool(true)
            case UInt8(ascii: "f") where literal("false"): json = .bool(false)
            case UInt8(ascii: "n") where literal("null"): json = .null
            default: return nil
            }
            skipWhitespace()
            return json
        }

        private enum Key { case data, value, timestamp, other }

        /// A member's key, then the whitespace after it; nil if it is no plain string.
        private mutating func key() -> Key? {
            guard let text = plainString() else { return nil }
            skipWhitespace()
            if Self.equal(text, "data") { return .data }
            if Self.equal(text, "value") { return .value }
            if Self.equal(text, "timestamp") { return .timestamp }
            return .other
        }

        /// A string of printable ASCII without escapes; the bytes between the quotes.
        private mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
            guard take(UInt8(ascii: "\""), skippingWhitespace: false) else { return nil }
            let start = position
            while position < bytes.count {
                let byte = bytes[position]
                if byte == UInt8(ascii: "\"") {
                    position += 1
                    return UnsafeBufferPointer(rebasing: bytes[start..<position - 1])
                }
                guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\\") else { return nil }
                position += 1
            }
            return nil
        }

        private mutating func literal(_ word: StaticString) -> Bool {
            guard JSONBytes.hasWord(bytes, at: position, word) else { return false }
            position += word.utf8CodeUnitCount
            return true
        }

        private static func equal(_ text: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
            text.count == word.utf8CodeUnitCount && JSONBytes.hasWord(text, at: 0, word)
        }

        /// Takes `byte` if it comes next, and the whitespace after it.
        private mutating func take(_ byte: UInt8, skippingWhitespace: Bool = true) -> Bool {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            if skippingWhitespace { skipWhitespace() }
            return true
        }

        private func atEnd() -> Bool { position == bytes.count }

        private mutating func skipWhitespace() {
            JSONBytes.skipWhitespace(bytes, &position)
        }
    }
}
