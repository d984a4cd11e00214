import SenseiPostgres

extension PGRow {
    /// The first column's value: `row.decode(Int64.self) ?? 0`. The tuple
    /// form (`decode((Int64, String).self)`, a parameter pack) also takes one
    /// type, but then Swift infers neither a literal beside it nor the
    /// flattening of `row?.decode(Int32?.self)`; this overload wins over it.
    func decode<T: PGDecodable>(_ type: T.Type) throws(PGError) -> T {
        try decode(type, at: 0)
    }
}
