import CLibPQ

/// One statement's answer: its rows (all of them, held by libpq), their
/// columns, and how many rows it inserted, updated or deleted. Immutable,
/// so it may be read from any thread once the statement has returned.
public final class PGResult: @unchecked Sendable, RandomAccessCollection {
    let handle: OpaquePointer
    /// Column names as the statement gave them (`AS` aliases), by index.
    public let columnNames: [String]
    public let columnTypes: [PGType]
    /// Per column: true when binary (the extended protocol, which
    /// `query`/`execute` use), false when text (`script`, the simple protocol).
    let binaryColumns: [Bool]
    public let count: Int

    init(_ handle: OpaquePointer) {
        self.handle = handle
        count = Int(PQntuples(handle))
        let columns = 0..<PQnfields(handle)
        columnNames = columns.map { String(cString: PQfname(handle, $0)) }
        columnTypes = columns.map { PGType(oid: PQftype(handle, $0)) }
        binaryColumns = columns.map { PQfformat(handle, $0) == 1 }
    }

    deinit {
        PQclear(handle)
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(position: Int) -> PGRow {
        precondition(position >= 0 && position < count, "row \(position) of \(count)")
        return PGRow(result: self, index: Int32(position))
    }

    /// Rows inserted, updated, deleted, selected or copied, from the
    /// command tag (`PQcmdTuples`); 0 for commands that count nothing.
    public var affectedRows: Int {
        Int(String(cString: PQcmdTuples(handle))) ?? 0
    }

    /// The command tag, e.g. "INSERT 0 3", "CREATE TABLE".
    public var commandTag: String {
        String(cString: PQcmdStatus(handle))
    }

    /// The index of the column named `name` (exactly as the statement
    /// names it; no case folding), or nil.
    public func columnIndex(named name: String) -> Int? {
        columnNames.firstIndex(of: name)
    }
}

/// One row of a `PGResult`; it keeps the result alive.
public struct PGRow: Sendable {
    public let result: PGResult
    let index: Int32

    /// The value at `column` (0-based).
    public subscript(_ column: Int) -> PGCell {
        get throws(PGError) {
            guard column >= 0 && column < result.columnNames.count else {
                throw PGError(.decode, message: "no column \(column): the row has \(result.columnNames.count)")
            }
            return PGCell(result: result, row: index, column: Int32(column))
        }
    }

    /// The value of the column named `name`.
    public subscript(_ name: String) -> PGCell {
        get throws(PGError) {
            guard let column = result.columnIndex(named: name) else {
                throw PGError(.decode, message: "no column \"\(name)\" (the row has \(result.columnNames))")
            }
            return PGCell(result: result, row: index, column: Int32(column))
        }
    }

    public func decode<T: PGDecodable>(_ type: T.Type = T.self, at column: Int) throws(PGError) -> T {
        try self[column].decode(T.self)
    }

    public func decode<T: PGDecodable>(_ type: T.Type = T.self, named name: String) throws(PGError) -> T {
        try self[name].decode(T.self)
    }

    /// The row's first columns, in order: `row.decode((Int64, String?).self)`,
    /// or `row.decode(Int64.self)` for the first alone.
    public func decode<each T: PGDecodable>(_ types: (repeat each T).Type) throws(PGError) -> (repeat each T) {
        var column = 0
        func next<U: PGDecodable>(_ type: U.Type) throws(PGError) -> U {
            defer { column += 1 }
            return try self[column].decode(U.self)
        }
        return (repeat try next((each T).self))
    }
}

/// One value of a row (or one element of an array value): its type,
/// whether it is NULL, its bytes.
public struct PGCell: Sendable {
    public let result: PGResult
    let row: Int32
    let column: Int32
    /// Set for an element of an array value, which lives inside the cell's bytes.
    let element: Element?

    struct Element: @unchecked Sendable {
        let index: Int
        let type: PGType
        /// nil for NULL.
        let bytes: UnsafeRawBufferPointer?
    }

    init(result: PGResult, row: Int32, column: Int32, element: Element? = nil) {
        self.result = result
        self.row = row
        self.column = column
        self.element = element
    }

    public var type: PGType { element?.type ?? result.columnTypes[Int(column)] }
    public var columnName: String { result.columnNames[Int(column)] }

    public var isNull: Bool {
        if let element { return element.bytes == nil }
        return PQgetisnull(result.handle, row, column) == 1
    }

    /// Binary (the extended protocol, which `query` uses) or text (`script`).
    var isBinary: Bool { result.binaryColumns[Int(column)] }

    /// The value's bytes, valid while the result lives, which this cell
    /// ensures. libpq ends each with a NUL byte, not counted.
    var bytes: UnsafeRawBufferPointer {
        if let element { return element.bytes ?? UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: PQgetvalue(result.handle, row, column),
                                      count: Int(PQgetlength(result.handle, row, column)))
    }

    public func decode<T: PGDecodable>(_ type: T.Type = T.self) throws(PGError) -> T {
        try T.decode(from: self)
    }

    /// The bytes, or a decoding error naming the column when NULL.
    func nonNull<T>(_ type: T.Type) throws(PGError) -> UnsafeRawBufferPointer {
        guard !isNull else { throw PGError(.decode, message: "\(place) is NULL, decoded as non-optional \(T.self)") }
        return bytes
    }

    func mismatch<T>(_ type: T.Type) -> PGError {
        PGError(.decode, message: "\(place) is \(self.type), which does not decode as \(T.self)")
    }

    func malformed(_ what: String) -> PGError {
        PGError(.decode, message: "\(place) (\(type)): \(what)")
    }

    private var place: String {
        let cell = "column \(column) (\"\(columnName)\")"
        return element.map { "element \($0.index) of \(cell)" } ?? cell
    }
}
