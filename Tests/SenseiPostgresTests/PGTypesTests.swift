import SenseiPostgres
import SenseiTestSupport
import Testing

/// Values through binds and back, in the binary format of `query` and the
/// text format of `script`.
@Suite struct PGTypesTests {
    static let doubles: [Double] = [
        0, -0.0, 1, -1, 0.1, 1.0 / 3, .pi, 1e-300, -1e-300, 1e300, .leastNonzeroMagnitude,
        -.leastNonzeroMagnitude, .leastNormalMagnitude, .leastNormalMagnitude.nextDown, .greatestFiniteMagnitude,
        -.greatestFiniteMagnitude, .infinity, -.infinity, 123_456_789.123_456_789, 2.2250738585072014e-308,
    ]

    @Test func float8IsExactBothWays() async throws {
        try await withConnection { connection, _ in
            try connection.script("CREATE TABLE f (n int4 PRIMARY KEY, v float8)")
            for (n, value) in Self.doubles.enumerated() {
                try connection.execute("INSERT INTO f VALUES (\(Int32(n)), \(value))")
            }
            try connection.execute("INSERT INTO f VALUES (\(Int32(-1)), \(Double.nan))")
            let binary = try connection.query("SELECT v FROM f WHERE n >= 0 ORDER BY n").values(Double.self)
            #expect(binary.map(\.bitPattern) == Self.doubles.map(\.bitPattern))
            // PostgreSQL prints float8 in its shortest exact form: text reads back exactly too.
            let text = try connection.script("SELECT v FROM f WHERE n >= 0 ORDER BY n")[0].values(Double.self)
            #expect(text.map(\.bitPattern) == Self.doubles.map(\.bitPattern))
            #expect(try connection.query("SELECT v FROM f WHERE n = -1")[0].decode(Double.self).isNaN)
            // float4 widens exactly; numeric is the nearest Double.
            let (single, numeric) = try connection.query("SELECT 0.1::float4, 0.1::numeric")[0].decode((Double, Double).self)
            #expect(single == Double(Float(0.1)))
            #expect(numeric == 0.1)
        }
    }

    @Test func integersKeepTheirExtremes() async throws {
        try await withConnection { connection, _ in
            for value in [Int64.min, -1, 0, 1, Int64.max] {
                #expect(try connection.query("SELECT \(value)")[0].decode(Int64.self) == value)
            }
            for value in [Int32.min, 0, Int32.max] {
                let row = try connection.query("SELECT \(value)")[0]
                #expect(try row.decode(Int32.self) == value)
                // An int4 widens into Int64 and Int.
                #expect(try row.decode(Int64.self) == Int64(value))
                #expect(try row.decode(Int.self) == Int(value))
            }
            let (small, large) = try connection.query("SELECT \(Int16.min), \(Int.max)")[0].decode((Int16, Int).self)
            #expect(small == .min && large == .max)
            #expect(try connection.script("SELECT '-9223372036854775808'::int8")[0][0].decode(Int64.self) == .min)
        }
    }

    @Test func stringsAreUnicodeAndNeverSQL() async throws {
        let strings = [
            "", "plain", "héllo wörld", "日本語のテキスト", "emoji 🧪👩‍🔬🇨🇭", "e\u{301} combining", "'; DROP TABLE t; --",
            "back\\slash and \"quotes\"", "tab\tnew\nline", String(repeating: "long ", count: 20_000),
        ]
        try await withConnection { connection, _ in
            try connection.script("CREATE TABLE s (n int4, v text, c varchar(200000))")
            for (n, value) in strings.enumerated() {
                try connection.execute("INSERT INTO s VALUES (\(Int32(n)), \(value), \(value))")
            }
            let rows = try connection.query("SELECT v, c FROM s ORDER BY n")
            #expect(try rows.values(String.self, at: 0) == strings)
            #expect(try rows.values(String.self, at: 1) == strings)
            #expect(try connection.script("SELECT v FROM s ORDER BY n")[0].values(String.self) == strings)
        }
    }

    @Test func byteaKeepsZeroBytes() async throws {
        var random = SplitMix64(seed: 7)
        let noise = (0..<100_000).map { _ in UInt8.random(in: 0...255, using: &random) }
        let values: [[UInt8]] = [[], [0], [0, 0, 255, 0, 1], Array(0...255), noise]
        try await withConnection { connection, _ in
            try connection.script("CREATE TABLE b (n int4, v bytea)")
            for (n, value) in values.enumerated() {
                try connection.execute("INSERT INTO b VALUES (\(Int32(n)), \(value))")
            }
            #expect(try connection.query("SELECT v FROM b ORDER BY n").values([UInt8].self) == values)
            // Text format: hex.
            #expect(try connection.script("SELECT v FROM b ORDER BY n")[0].values([UInt8].self) == values)
            #expect(try connection.query("SELECT length(v) FROM b ORDER BY n").values(Int.self)
                == values.map(\.count))
        }
    }

    @Test func nullsDecodeAsNilAndOnlyAsNil() async throws {
        try await withConnection { connection, _ in
            let row = try connection.query("""
                SELECT \(Int64?.none) AS a, \(Int32?.none) AS b, \(Double?.none) AS c, \(String?.none) AS d,
                       \(Bool?.none) AS e, \([UInt8]?.none) AS f, \(Int?.none) AS g, \(Int64?.some(5)) AS h
                """)[0]
            let values = try row.decode((Int64?, Int32?, Double?, String?, Bool?, [UInt8]?, Int?, Int64?).self)
            #expect(values.0 == nil && values.1 == nil && values.2 == nil && values.3 == nil)
            #expect(values.4 == nil && values.5 == nil && values.6 == nil && values.7 == 5)
            // A typed NULL keeps its type.
            #expect(try connection.query("SELECT pg_typeof(\(Double?.none))::text")[0].decode(String.self) == "double precision")
            let error = #expect(throws: PGError.self) { try row.decode(Int64.self, named: "a") }
            #expect(error?.kind == .decode)
            #expect(error?.description.contains("\"a\") is NULL") == true)
        }
    }

    @Test func boolsArraysAndNumerics() async throws {
        try await withConnection { connection, _ in
            let bound = try connection.query("SELECT \(true), \(false)")[0].decode((Bool, Bool).self)
            let text = try connection.script("SELECT true, false")[0][0].decode((Bool, Bool).self)
            #expect(bound.0 && !bound.1 && text.0 && !text.1)
            let ids: [Int64] = [3, -1, .max]
            let names = ["a", "", "ü 🧪", "x,y \"z\""]
            let row = try connection.query("""
                SELECT \(ids)::int8[], \(names)::text[], \([0.5, -0.0])::float8[], \([Int64]())::int8[],
                       ARRAY[1, 2]::int4[], (SELECT array_agg(x) FROM unnest(\(names)::text[]) AS x)
                """)[0]
            let decoded = try row.decode(([Int64], [String], [Double], [Int64], [Int64], [String]).self)
            #expect(decoded.0 == ids && decoded.1 == names && decoded.2.map(\.bitPattern) == [0.5, -0.0].map(\.bitPattern))
            #expect(decoded.3 == [] && decoded.4 == [1, 2] && decoded.5 == names)
            let numbers = try connection.query("""
                SELECT 12.340::numeric, 0.00001::numeric, -98765432109876543210.5::numeric, 0::numeric,
                       'NaN'::numeric, 10000::numeric
                """)[0]
            let texts = try (0..<6).map { column throws(PGError) in try numbers.decode(String.self, at: column) }
            #expect(texts == ["12.340", "0.00001", "-98765432109876543210.5", "0", "NaN", "10000"])
        }
    }

    @Test func mismatchesSayWhichColumnAndTypes() async throws {
        try await withConnection { connection, _ in
            let row = try connection.query("SELECT 1::int8 AS n, 'x'::text AS s, 1.5::float8 AS f, now() AS t")[0]
            let asDouble = #expect(throws: PGError.self) { try row.decode(Double.self, named: "n") }
            #expect(asDouble?.description == "column 0 (\"n\") is int8, which does not decode as Double")
            #expect(throws: PGError.self) { try row.decode(Int.self, named: "f") }
            #expect(throws: PGError.self) { try row.decode(Int32.self, named: "n") }
            #expect(throws: PGError.self) { try row.decode(Bool.self, named: "s") }
            let timestamp = #expect(throws: PGError.self) { try row.decode(String.self, named: "t") }
            #expect(timestamp?.description.contains("timestamptz") == true)
            let missing = #expect(throws: PGError.self) { try row.decode(Int.self, named: "nope") }
            #expect(missing?.description.contains("no column \"nope\"") == true)
            #expect(throws: PGError.self) { try row.decode(Int.self, at: 9) }
            // By index and by name agree; the tuple form reads from column 0.
            #expect(try row.decode(String.self, at: 1) == row.decode(String.self, named: "s"))
            let (number, text) = try row.decode((Int64, String).self)
            #expect(number == 1 && text == "x")
        }
    }
}
