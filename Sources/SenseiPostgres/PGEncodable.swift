/// A Swift value sent to PostgreSQL as a bound parameter or a binary COPY
/// field, in PostgreSQL's binary format: exact for every float8 and
/// int8, and nothing to parse on the server.
///
/// The type is sent with the value (`Int` as int8, `String` as text, …), as
/// postgres-nio does: PostgreSQL casts int8 to an int4 column, text to a
/// varchar one; other targets need a cast in the SQL (`$1::timestamptz`).
public protocol PGEncodable: Sendable {
    static var pgType: PGType { get }
    /// Appends the value's binary form; nothing for NULL.
    func encode(into buffer: inout [UInt8])
    /// True only for `Optional.none`: sent as NULL.
    var pgIsNull: Bool { get }
}

extension PGEncodable {
    public var pgIsNull: Bool { false }
}

extension Optional: PGEncodable where Wrapped: PGEncodable {
    public static var pgType: PGType { Wrapped.pgType }
    public var pgIsNull: Bool { self == nil }

    public func encode(into buffer: inout [UInt8]) {
        if case .some(let value) = self { value.encode(into: &buffer) }
    }
}

extension [UInt8] {
    /// Appends `value` in network byte order.
    mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}

extension Int64: PGEncodable {
    public static var pgType: PGType { .int8 }
    public func encode(into buffer: inout [UInt8]) { buffer.appendBigEndian(self) }
}

extension Int: PGEncodable {
    public static var pgType: PGType { .int8 }
    public func encode(into buffer: inout [UInt8]) { buffer.appendBigEndian(Int64(self)) }
}

extension Int32: PGEncodable {
    public static var pgType: PGType { .int4 }
    public func encode(into buffer: inout [UInt8]) { buffer.appendBigEndian(self) }
}

extension Int16: PGEncodable {
    public static var pgType: PGType { .int2 }
    public func encode(into buffer: inout [UInt8]) { buffer.appendBigEndian(self) }
}

extension Double: PGEncodable {
    public static var pgType: PGType { .float8 }
    public func encode(into buffer: inout [UInt8]) { buffer.appendBigEndian(bitPattern) }
}

extension Bool: PGEncodable {
    public static var pgType: PGType { .bool }
    public func encode(into buffer: inout [UInt8]) { buffer.append(self ? 1 : 0) }
}

extension String: PGEncodable {
    public static var pgType: PGType { .text }
    public func encode(into buffer: inout [UInt8]) { buffer.append(contentsOf: utf8) }
}

extension Substring: PGEncodable {
    public static var pgType: PGType { .text }
    public func encode(into buffer: inout [UInt8]) { buffer.append(contentsOf: utf8) }
}

/// A type whose arrays PostgreSQL takes as one value: `[Int64]` as int8[]
/// (for `unnest($1::int8[])`), `[String]` as text[]. `UInt8` is the one
/// exception: `[UInt8]` is bytea, since an array type conforms to a
/// protocol only once.
public protocol PGArrayElement: Sendable {
    static var pgArrayType: PGType { get }
    static func encodeArray(_ array: [Self], into buffer: inout [UInt8])
    static func decodeArray(_ cell: PGCell) throws(PGError) -> [Self]
}

extension Array: PGEncodable where Element: PGArrayElement {
    public static var pgType: PGType { Element.pgArrayType }
    public func encode(into buffer: inout [UInt8]) { Element.encodeArray(self, into: &buffer) }
}

extension PGArrayElement where Self: PGEncodable & PGDecodable {
    /// PostgreSQL's binary array: dimensions, a has-NULLs flag, the element
    /// type, each dimension's length and lower bound (1), then each element
    /// with its length. An empty array has no dimensions.
    public static func encodeArray(_ array: [Self], into buffer: inout [UInt8]) {
        buffer.appendBigEndian(Int32(array.isEmpty ? 0 : 1))
        buffer.appendBigEndian(Int32(0))
        buffer.appendBigEndian(pgType.oid)
        guard !array.isEmpty else { return }
        buffer.appendBigEndian(Int32(array.count))
        buffer.appendBigEndian(Int32(1))
        for element in array {
            buffer.appendLengthPrefixed(element)
        }
    }
}

extension [UInt8] {
    /// `value` after its length as an int32, -1 for NULL: how binary COPY
    /// fields and array elements are framed.
    mutating func appendLengthPrefixed<T: PGEncodable>(_ value: T) {
        guard !value.pgIsNull else { return appendBigEndian(Int32(-1)) }
        let start = count
        append(contentsOf: [0, 0, 0, 0])
        value.encode(into: &self)
        let length = UInt32(count - start - 4).bigEndian
        Swift.withUnsafeBytes(of: length) { bytes in
            for index in 0..<4 { self[start + index] = bytes[index] }
        }
    }
}

extension Int64: PGArrayElement { public static var pgArrayType: PGType { .int8Array } }
extension Int: PGArrayElement { public static var pgArrayType: PGType { .int8Array } }
extension Int32: PGArrayElement { public static var pgArrayType: PGType { .int4Array } }
extension Int16: PGArrayElement { public static var pgArrayType: PGType { .int2Array } }
extension Double: PGArrayElement { public static var pgArrayType: PGType { .float8Array } }
extension Bool: PGArrayElement { public static var pgArrayType: PGType { .boolArray } }
extension String: PGArrayElement { public static var pgArrayType: PGType { .textArray } }

extension UInt8: PGArrayElement {
    public static var pgArrayType: PGType { .bytea }

    public static func encodeArray(_ array: [UInt8], into buffer: inout [UInt8]) {
        buffer.append(contentsOf: array)
    }

    public static func decodeArray(_ cell: PGCell) throws(PGError) -> [UInt8] {
        let bytes = try cell.nonNull([UInt8].self)
        switch (cell.type, cell.isBinary) {
        case (.bytea, true): return Array(bytes)
        case (.bytea, false): return try PGText.bytea(bytes, cell)
        default: throw cell.mismatch([UInt8].self)
        }
    }
}
