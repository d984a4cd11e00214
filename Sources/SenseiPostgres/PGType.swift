/// A PostgreSQL type, by its OID: what a bind is sent as, what a column
/// holds. Only the built-in types this client encodes or decodes are named;
/// any other OID still prints as a number in an error.
public struct PGType: Hashable, Sendable, CustomStringConvertible {
    public let oid: UInt32

    public init(oid: UInt32) {
        self.oid = oid
    }

    public static let bool = PGType(oid: 16)
    public static let bytea = PGType(oid: 17)
    public static let char = PGType(oid: 18)
    public static let name = PGType(oid: 19)
    public static let int8 = PGType(oid: 20)
    public static let int2 = PGType(oid: 21)
    public static let int4 = PGType(oid: 23)
    public static let text = PGType(oid: 25)
    public static let oidType = PGType(oid: 26)
    public static let json = PGType(oid: 114)
    public static let float4 = PGType(oid: 700)
    public static let float8 = PGType(oid: 701)
    public static let unknown = PGType(oid: 705)
    public static let bpchar = PGType(oid: 1042)
    public static let varchar = PGType(oid: 1043)
    public static let numeric = PGType(oid: 1700)
    public static let jsonb = PGType(oid: 3802)

    public static let boolArray = PGType(oid: 1000)
    public static let byteaArray = PGType(oid: 1001)
    public static let int2Array = PGType(oid: 1005)
    public static let int4Array = PGType(oid: 1007)
    public static let textArray = PGType(oid: 1009)
    public static let varcharArray = PGType(oid: 1015)
    public static let int8Array = PGType(oid: 1016)
    public static let float4Array = PGType(oid: 1021)
    public static let float8Array = PGType(oid: 1022)

    private static let names: [UInt32: String] = [
        16: "bool", 17: "bytea", 18: "char", 19: "name", 20: "int8", 21: "int2", 23: "int4", 25: "text",
        26: "oid", 114: "json", 700: "float4", 701: "float8", 705: "unknown", 1042: "bpchar",
        1043: "varchar", 1700: "numeric", 3802: "jsonb", 1000: "bool[]", 1001: "bytea[]", 1005: "int2[]",
        1007: "int4[]", 1009: "text[]", 1015: "varchar[]", 1016: "int8[]", 1021: "float4[]",
        1022: "float8[]", 1082: "date", 1114: "timestamp", 1184: "timestamptz", 2950: "uuid",
    ]

    public var description: String { Self.names[oid] ?? "type \(oid)" }

    /// Types whose binary form is their text in UTF-8 (jsonb adds a version byte first).
    var isText: Bool {
        [Self.text, .varchar, .bpchar, .name, .unknown, .json, .char].contains(self)
    }
}
