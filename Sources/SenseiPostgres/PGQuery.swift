/// A statement and its bound values, kept apart so a value never becomes
/// SQL. Written as a string literal, every interpolated value becomes the
/// next `$n` (as postgres-nio's `PostgresQuery`):
///
///     try connection.execute("DELETE FROM tokens WHERE name = \(name)")
///
/// `\(unescaped: text)` puts SQL text in as it is (a table name the code
/// chose, never input). Built by hand, `appendBind` writes the next `$n` and
/// binds its value, for statements whose shape varies (a VALUES list of any
/// length); or write `$n` yourself and `binds.append` in the same order.
public struct PGQuery: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    public var sql: String
    public var binds: PGBindings

    public init(unsafeSQL sql: String, binds: PGBindings = PGBindings()) {
        self.sql = sql
        self.binds = binds
    }

    public init(stringLiteral value: String) {
        self.init(unsafeSQL: value)
    }

    public init(stringInterpolation: StringInterpolation) {
        self.init(unsafeSQL: stringInterpolation.sql, binds: stringInterpolation.binds)
    }

    /// Appends SQL text as it is.
    public mutating func appendSQL(_ text: String) {
        sql += text
    }

    /// Binds `value` and appends its placeholder (`$n`) to the SQL.
    public mutating func appendBind<T: PGEncodable>(_ value: T) {
        binds.append(value)
        sql += "$\(binds.count)"
    }

    public var description: String { "\(sql) [\(binds.count) binds]" }

    public struct StringInterpolation: StringInterpolationProtocol, Sendable {
        var sql = ""
        var binds = PGBindings()

        public init(literalCapacity: Int, interpolationCount: Int) {
            sql.reserveCapacity(literalCapacity + 3 * interpolationCount)
        }

        public mutating func appendLiteral(_ literal: String) {
            sql += literal
        }

        public mutating func appendInterpolation<T: PGEncodable>(_ value: T) {
            binds.append(value)
            sql += "$\(binds.count)"
        }

        /// NULL when nil. (Its own overload, so Swift does not warn of an
        /// optional interpolated into a string.)
        public mutating func appendInterpolation<T: PGEncodable>(_ value: T?) {
            binds.append(value)
            sql += "$\(binds.count)"
        }

        public mutating func appendInterpolation(unescaped text: String) {
            sql += text
        }
    }
}

/// The values bound to a statement's `$1, $2, …`, in order: their types and
/// their binary forms, packed in one buffer.
public struct PGBindings: Sendable, Hashable {
    /// Every value's bytes, one after another.
    var bytes: [UInt8] = []
    var offsets: [Int32] = []
    /// -1 for NULL.
    var lengths: [Int32] = []
    var types: [UInt32] = []

    public init() {}

    public init(capacity: Int) {
        offsets.reserveCapacity(capacity)
        lengths.reserveCapacity(capacity)
        types.reserveCapacity(capacity)
    }

    public var count: Int { types.count }

    public mutating func append<T: PGEncodable>(_ value: T) {
        types.append(T.pgType.oid)
        offsets.append(Int32(bytes.count))
        if value.pgIsNull {
            lengths.append(-1)
        } else {
            let start = bytes.count
            value.encode(into: &bytes)
            lengths.append(Int32(bytes.count - start))
        }
    }

    /// The values as libpq takes them: a pointer per value (nil for NULL),
    /// lengths, formats (all binary), types, valid inside `body` only.
    func withLibPQArrays<R>(
        _ body: (_ values: [UnsafePointer<CChar>?], _ lengths: [Int32], _ formats: [Int32], _ types: [UInt32]) throws -> R
    ) rethrows -> R {
        let formats = [Int32](repeating: 1, count: count)
        return try bytes.withUnsafeBufferPointer { buffer in
            try withUnsafePointer(to: 0 as UInt8) { empty in
                // A zero-length value (an empty string) still needs a non-NULL
                // pointer, and an empty buffer has no base address.
                let base = buffer.baseAddress ?? empty
                let values: [UnsafePointer<CChar>?] = (0..<count).map { index in
                    lengths[index] < 0
                        ? nil : UnsafeRawPointer(base + Int(offsets[index])).assumingMemoryBound(to: CChar.self)
                }
                return try body(values, lengths, formats, types)
            }
        }
    }
}
