import CLibPQ

#if canImport(Glibc)
import Glibc
#endif

/// A Swift type a column's value decodes into. Decoding checks the column's
/// type: an integer widens (int2 or int4 into `Int64`), but nothing narrows
/// or changes kind silently (float8 into `Int64` is an error, as is NULL
/// into a non-optional).
public protocol PGDecodable {
    static func decode(from cell: PGCell) throws(PGError) -> Self
}

extension Optional: PGDecodable where Wrapped: PGDecodable {
    public static func decode(from cell: PGCell) throws(PGError) -> Wrapped? {
        cell.isNull ? nil : try Wrapped.decode(from: cell)
    }
}

extension Array: PGDecodable where Element: PGArrayElement {
    public static func decode(from cell: PGCell) throws(PGError) -> [Element] {
        try Element.decodeArray(cell)
    }
}

extension UnsafeRawBufferPointer {
    func bigEndian<T: FixedWidthInteger>(_ type: T.Type, at offset: Int = 0) -> T {
        T(bigEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}

extension PGCell {
    /// Any of int2, int4, int8 (or, when `widest` allows, only the narrower
    /// ones), widened to Int64.
    fileprivate func integer<T>(as target: T.Type, widest: PGType) throws(PGError) -> Int64 {
        let bytes = try nonNull(T.self)
        let allowed: [PGType] = widest == .int8 ? [.int2, .int4, .int8] : widest == .int4 ? [.int2, .int4] : [.int2]
        guard allowed.contains(type) else { throw mismatch(T.self) }
        guard isBinary else {
            guard let value = Int64(String(decoding: bytes, as: UTF8.self)) else { throw malformed("not an integer") }
            return value
        }
        switch (type, bytes.count) {
        case (.int8, 8): return bytes.bigEndian(Int64.self)
        case (.int4, 4): return Int64(bytes.bigEndian(Int32.self))
        case (.int2, 2): return Int64(bytes.bigEndian(Int16.self))
        default: throw malformed("\(bytes.count) bytes")
        }
    }
}

extension Int64: PGDecodable {
    public static func decode(from cell: PGCell) throws(PGError) -> Int64 {
        try cell.integer(as: Int64.self, widest: .int8)
    }
}

extension Int: PGDecodable {
    public static func decode(from cell: PGCell) throws(PGError) -> Int {
        Int(try cell.integer(as: Int.self, widest: .int8))
    }
}

extension Int32: PGDecodable {
    public static func decode(from cell: PGCell) throws(PGError) -> Int32 {
        Int32(try cell.integer(as: Int32.self, widest: .int4))
    }
}

extension Int16: PGDecodable {
    public static func decode(from cell: PGCell) throws(PGError) -> Int16 {
        Int16(try cell.integer(as: Int16.self, widest: .int2))
    }
}

extension Double: PGDecodable {
    /// float8 exactly (its bits); float4 widened; numeric as the nearest Double.
    public static func decode(from cell: PGCell) throws(PGError) -> Double {
        let bytes = try cell.nonNull(Double.self)
        guard [PGType.float8, .float4, .numeric].contains(cell.type) else { throw cell.mismatch(Double.self) }
        guard cell.isBinary else { return try PGText.double(bytes, cell) }
        switch (cell.type, bytes.count) {
        case (.float8, 8): return Double(bitPattern: bytes.bigEndian(UInt64.self))
        case (.float4, 4): return Double(Float(bitPattern: bytes.bigEndian(UInt32.self)))
        case (.numeric, _):
            guard let value = Double(try PGNumeric.text(bytes, cell)) else { throw cell.malformed("not a number") }
            return value
        default: throw cell.malformed("\(bytes.count) bytes")
        }
    }
}

extension Bool: PGDecodable {
    public static func decode(from cell: PGCell) throws(PGError) -> Bool {
        let bytes = try cell.nonNull(Bool.self)
        guard cell.type == .bool, bytes.count == 1 else { throw cell.mismatch(Bool.self) }
        // Binary: 1 or 0; text: "t" or "f".
        return cell.isBinary ? bytes[0] != 0 : bytes[0] == UInt8(ascii: "t")
    }
}

extension String: PGDecodable {
    /// Text-like columns (text, varchar, name, json, jsonb, …) and numeric;
    /// anything from `script`, whose values all come as text. Another type
    /// wants a cast in the SQL (`ts::text`).
    public static func decode(from cell: PGCell) throws(PGError) -> String {
        let bytes = try cell.nonNull(String.self)
        guard cell.isBinary else { return String(decoding: bytes, as: UTF8.self) }
        if cell.type.isText { return String(decoding: bytes, as: UTF8.self) }
        if cell.type == .jsonb, bytes.count >= 1, bytes[0] == 1 {
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes.dropFirst()), as: UTF8.self)
        }
        if cell.type == .numeric { return try PGNumeric.text(bytes, cell) }
        throw cell.mismatch(String.self)
    }
}

extension PGArrayElement where Self: PGEncodable & PGDecodable {
    /// A one-dimensional array in binary format (see `encodeArray`); its
    /// elements decode as `Self`, so an int4[] decodes into `[Int64]` too.
    public static func decodeArray(_ cell: PGCell) throws(PGError) -> [Self] {
        let bytes = try cell.nonNull([Self].self)
        guard cell.isBinary, cell.element == nil else { throw cell.mismatch([Self].self) }
        guard bytes.count >= 12 else { throw cell.malformed("\(bytes.count) bytes") }
        let dimensions = bytes.bigEndian(Int32.self)
        let elementType = PGType(oid: bytes.bigEndian(UInt32.self, at: 8))
        if dimensions == 0 { return [] }
        guard dimensions == 1 else { throw cell.malformed("\(dimensions) dimensions; only 1 decodes") }
        guard bytes.count >= 20 else { throw cell.malformed("\(bytes.count) bytes") }
        let count = Int(bytes.bigEndian(Int32.self, at: 12))
        var offset = 20
        var elements: [Self] = []
        elements.reserveCapacity(count)
        for index in 0..<count {
            guard offset + 4 <= bytes.count else { throw cell.malformed("ends inside element \(index)") }
            let length = Int(bytes.bigEndian(Int32.self, at: offset))
            offset += 4
            var elementBytes: UnsafeRawBufferPointer?
            if length >= 0 {
                guard offset + length <= bytes.count else { throw cell.malformed("ends inside element \(index)") }
                elementBytes = UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length])
                offset += length
            }
            let element = PGCell(result: cell.result, row: cell.row, column: cell.column,
                                 element: .init(index: index, type: elementType, bytes: elementBytes))
            elements.append(try Self.decode(from: element))
        }
        return elements
    }
}

/// Values in text format (the simple protocol of `script`).
enum PGText {
    /// PostgreSQL 12+ prints a float8 in its shortest form that reads back
    /// exactly, and strtod reads it back exactly (NaN, Infinity included).
    static func double(_ bytes: UnsafeRawBufferPointer, _ cell: PGCell) throws(PGError) -> Double {
        // libpq ends every value with a NUL, so the bytes are a C string.
        let start = bytes.baseAddress!.assumingMemoryBound(to: CChar.self)
        var end: UnsafeMutablePointer<CChar>?
        let value = strtod(start, &end)
        guard let end, end == UnsafeMutablePointer(mutating: start) + bytes.count, bytes.count > 0 else {
            throw cell.malformed("not a number")
        }
        return value
    }

    /// bytea's text form: `\x` then two hex digits a byte.
    static func bytea(_ bytes: UnsafeRawBufferPointer, _ cell: PGCell) throws(PGError) -> [UInt8] {
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "\\"), bytes[1] == UInt8(ascii: "x"), bytes.count % 2 == 0
        else { throw cell.malformed("not in hex format") }
        func nibble(_ byte: UInt8) throws(PGError) -> UInt8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
            default: throw cell.malformed("not in hex format")
            }
        }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count / 2 - 1)
        var index = 2
        while index < bytes.count {
            result.append(try nibble(bytes[index]) << 4 | nibble(bytes[index + 1]))
            index += 2
        }
        return result
    }
}

/// numeric's binary form: digit count, weight (of the first digit, in
/// powers of 10,000), sign, display scale, then base-10,000 digits.
enum PGNumeric {
    static func text(_ bytes: UnsafeRawBufferPointer, _ cell: PGCell) throws(PGError) -> String {
        guard bytes.count >= 8 else { throw cell.malformed("\(bytes.count) bytes") }
        let count = Int(bytes.bigEndian(Int16.self))
        let weight = Int(bytes.bigEndian(Int16.self, at: 2))
        let sign = bytes.bigEndian(UInt16.self, at: 4)
        let scale = Int(bytes.bigEndian(Int16.self, at: 6))
        guard count >= 0, bytes.count == 8 + 2 * count else { throw cell.malformed("\(bytes.count) bytes") }
        switch sign {
        case 0xC000: return "NaN"
        case 0xD000: return "Infinity"
        case 0xF000: return "-Infinity"
        default: break
        }
        func digit(_ index: Int) -> Int {
            index >= 0 && index < count ? Int(bytes.bigEndian(Int16.self, at: 8 + 2 * index)) : 0
        }
        func padded(_ value: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: 4 - digits.count) + digits
        }
        var text = sign == 0x4000 ? "-" : ""
        if weight < 0 {
            text += "0"
        } else {
            text += String(digit(0))
            for index in stride(from: 1, through: weight, by: 1) { text += padded(digit(index)) }
        }
        if scale > 0 {
            var fraction = ""
            var index = weight + 1
            while fraction.count < scale {
                fraction += padded(digit(index))
                index += 1
            }
            text += "." + fraction.prefix(scale)
        }
        return text
    }
}
