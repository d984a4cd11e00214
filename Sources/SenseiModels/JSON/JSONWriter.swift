/// Writes compact JSON straight into bytes, keys in the order given.
///
/// Responses are written with this rather than through an intermediate tree so
/// that wire objects keep their documented key order and big reading lists
/// cost one buffer.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    private var needsComma = false
    /// The last timestamp's day, so that a list of readings works out each
    /// day's date once rather than once a reading.
    private var dates = RFC3339Dates()

    public init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    public var string: String { String(decoding: bytes, as: UTF8.self) }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
    }

    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// A key written in the source: copied as it is, so it must need no escaping.
    public mutating func key(_ key: StaticString) {
        assert(UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount)
            .allSatisfy { $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }, "\(key) needs escaping")
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: key.utf8Start, count: key.utf8CodeUnitCount))
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        needsComma = false
    }

    /// A key known only at run time. Disfavoured so that a literal key takes
    /// the `StaticString` overload above, which needs no escaping check (a
    /// literal otherwise becomes a `String`: every reading's two keys were
    /// scanned for quotes).
    @_disfavoredOverload
    public mutating func key(_ key: String) {
        string(key)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func null() {
        separate()
        bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
    }

    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: value ? Array("true".utf8) : Array("false".utf8))
    }

    public mutating func int(_ value: Int64) {
        separate()
        appendInteger(value, to: &bytes)
    }

    public mutating func int(_ value: Int) { int(Int64(value)) }

    /// A finite number, integral values without a fraction; non-finite becomes null
    /// (JSON has no NaN), though the store never holds one.
    public mutating func number(_ value: Double) {
        separate()
        appendNumber(value, to: &bytes)
    }

    public mutating func string(_ value: String) {
        separate()
        appendQuoted(value, to: &bytes)
    }

    public mutating func timestamp(_ value: Timestamp) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        dates.append(value, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let bool): self.bool(bool)
        case .number(let number): self.number(number)
        case .string(let string): self.string(string)
        case .array(let items):
            beginArray()
            items.forEach { self.value($0) }
            endArray()
        case .object(let members):
            beginObject()
            for key in members.keys.sorted() {
                self.key(key)
                self.value(members[key]!)
            }
            endObject()
        }
    }
}

/// Formats a number the way the API writes it: integral values below 2^53 as
/// integers, others in Swift's shortest round-trip form.
public func appendNumber(_ value: Double, to bytes: inout [UInt8]) {
    guard value.isFinite else {
        bytes.append(contentsOf: Array("null".utf8))
        return
    }
    if value.rounded() == value && abs(value) < 9.007_199_254_740_992e15 {
        appendInteger(Int64(value), to: &bytes)
    } else if !appendShortDecimal(value, to: &bytes) {
        bytes.append(contentsOf: value.description.utf8)
    }
}

/// The number as text, as the API writes it (also used for CSV and the legacy API).
public func formatNumber(_ value: Double) -> String {
    var bytes: [UInt8] = []
    appendNumber(value, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
}

private let hexDigits = Array("0123456789abcdef".utf8)

func appendQuoted(_ value: String, to bytes: inout [UInt8]) {
    bytes.append(UInt8(ascii: "\""))
    // Most strings need no escaping: copy them whole.
    var value = value
    let clean = value.withUTF8 { utf8 in
        guard !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            return false
        }
        bytes.append(contentsOf: utf8)
        return true
    }
    if !clean { appendEscaped(value, to: &bytes) }
    bytes.append(UInt8(ascii: "\""))
}

private func appendEscaped(_ value: String, to bytes: inout [UInt8]) {
    for byte in value.utf8 {
        switch byte {
        case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
        case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        case 0..<0x20:
            bytes.append(contentsOf: Array("\\u00".utf8))
            bytes.append(hexDigits[Int(byte >> 4)])
            bytes.append(hexDigits[Int(byte & 0xF)])
        default: bytes.append(byte)
        }
    }
}

/// A wire value that writes itself as JSON.
public protocol JSONWritable {
    func write(to writer: inout JSONWriter)
}

extension Sensor: JSONWritable {}
extension Reading: JSONWritable {}
extension Bucket: JSONWritable {}

extension JSONWriter {
    /// `{"<key>": [items…]}`, the API's list envelope. Inlinable so that it is
    /// specialised for each wire type instead of dispatched generically.
    @inlinable
    public mutating func envelope(_ key: StaticString, _ items: some Collection<some JSONWritable>) {
        beginObject()
        self.key(key)
        beginArray()
        for item in items { item.write(to: &self) }
        endArray()
        endObject()
    }
}
