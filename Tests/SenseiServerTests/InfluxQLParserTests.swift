import Foundation
import Testing
import SenseiTestSupport
@testable import SenseiServer

/// The parser as facts: statements printed back in canonical form (after
/// InfluxDB's `influxql/parser_test.go`), and its error texts, which are
/// InfluxDB 1.8's word for word.
@Suite("InfluxQL parser")
struct InfluxQLParserTests {
    static let statements: [(String, String)] = [
        // Grafana's and Home Assistant's shapes.
        (#"SELECT mean("value") FROM "temperature" WHERE ("room" = 'kitchen') AND time >= 1700000000000ms and time <= 1700003600000ms GROUP BY time(1m) fill(null)"#,
         "SELECT mean(value) FROM temperature WHERE (room = 'kitchen') AND time >= 1700000000s AND time <= 1700003600s GROUP BY time(1m)"),
        (#"select mean(value) as value from "temperature" where "room" = 'living' and time > now() - 15m"#,
         "SELECT mean(value) AS value FROM temperature WHERE room = 'living' AND time > now() - 15m"),
        ("SHOW measurements", "SHOW MEASUREMENTS"),
        ("SHOW MEASUREMENTS WITH MEASUREMENT =~ /(?i)kitch/ LIMIT 100", "SHOW MEASUREMENTS WITH MEASUREMENT =~ /(?i)kitch/ LIMIT 100"),
        ("show measurements with measurement = cpu where host = 'a'", "SHOW MEASUREMENTS WITH MEASUREMENT = cpu WHERE host = 'a'"),
        (#"SHOW TAG VALUES FROM "cpu" WITH KEY = "host" WHERE region =~ /^eu/"#, "SHOW TAG VALUES FROM cpu WITH KEY = host WHERE region =~ /^eu/"),
        ("SHOW TAG VALUES WITH KEY IN (host, region)", "SHOW TAG VALUES WITH KEY IN (host, region)"),
        ("SHOW TAG VALUES WITH KEY =~ /h.*/ LIMIT 5 OFFSET 1", "SHOW TAG VALUES WITH KEY =~ /h.*/ LIMIT 5 OFFSET 1"),
        ("SHOW TAG KEYS ON home FROM cpu", "SHOW TAG KEYS FROM cpu"),
        ("SHOW FIELD KEYS FROM /^c/", "SHOW FIELD KEYS FROM /^c/"),
        ("SHOW SERIES FROM cpu WHERE host = 'a' LIMIT 10", "SHOW SERIES FROM cpu WHERE host = 'a' LIMIT 10"),
        ("SHOW RETENTION POLICIES ON \"home\"", "SHOW RETENTION POLICIES"),
        ("CREATE DATABASE \"home assistant\" WITH DURATION 30d", "CREATE DATABASE \"home assistant\""),
        // Clauses.
        ("SELECT * FROM \"db\".\"rp\".\"cpu\", mem, /^disk/", "SELECT * FROM cpu, mem, /^disk/"),
        ("SELECT value FROM db..cpu", "SELECT value FROM cpu"),
        ("SELECT value*2 + 1 AS twice, -value, (a + b) / 2 FROM m", "SELECT value * 2 + 1 AS twice, -1 * value, (a + b) / 2 FROM m"),
        ("SELECT a FROM m WHERE a > 1 OR b < 2 AND c = 'x'", "SELECT a FROM m WHERE a > 1 OR b < 2 AND c = 'x'"),
        ("SELECT a FROM m WHERE host !~ /^web\\/[0-9]+$/", "SELECT a FROM m WHERE host !~ /^web\\/[0-9]+$/"),
        ("SELECT a::field, b::integer FROM m", "SELECT a, b FROM m"),
        ("SELECT percentile(v, 95.5), integral(v, 1h), moving_average(v, 3) FROM m",
         "SELECT percentile(v, 95.5), integral(v, 1h), moving_average(v, 3) FROM m"),
        ("SELECT mean(v) FROM m WHERE time > '2025-01-09T12:00:00Z' - 1h GROUP BY time(1h, 15m), host, * fill(linear)",
         "SELECT mean(v) FROM m WHERE time > '2025-01-09T12:00:00Z' - 1h GROUP BY time(1h, 15m), host, * fill(linear)"),
        ("SELECT v FROM m GROUP BY /reg/ fill(-1.5) ORDER BY time DESC LIMIT 10 OFFSET 2 SLIMIT 3 SOFFSET 1 tz('Europe/Berlin')",
         "SELECT v FROM m GROUP BY /reg/ fill(-1.5) ORDER BY time DESC LIMIT 10 OFFSET 2 SLIMIT 3 SOFFSET 1 tz('Europe/Berlin')"),
        ("SELECT v FROM m ORDER BY DESC", "SELECT v FROM m ORDER BY time DESC"),
        ("SELECT v FROM m WHERE time >= 1700000000 AND t = 'it\\'s' -- a comment", "SELECT v FROM m WHERE time >= 1700000000 AND t = 'it\\'s'"),
        ("SELECT v /* inline */ FROM m WHERE time > now() - 1w2d", "SELECT v FROM m WHERE time > now() - 9d"),
        ("SELECT count(distinct(v)), DISTINCT v FROM m", "SELECT count(distinct(v)), DISTINCT v FROM m"),
        ("SELECT v FROM m WHERE b = true AND f = 1.5", "SELECT v FROM m WHERE b = true AND f = 1.5"),
    ]

    @Test(arguments: statements)
    func parsesAndPrintsBack(_ input: String, _ printed: String) throws {
        let parsed = try InfluxQLParser.parse(input)
        #expect(parsed.map(\.description) == [printed])
    }

    @Test func statementsAreSeparatedBySemicolons() throws {
        let parsed = try InfluxQLParser.parse("SHOW DATABASES;; SELECT v FROM m ;SHOW MEASUREMENTS;")
        #expect(parsed.map(\.description) == ["SHOW DATABASES", "SELECT v FROM m", "SHOW MEASUREMENTS"])
        #expect(try InfluxQLParser.parse(" ; ").isEmpty)
        #expect(try InfluxQLParser.parse("DROP MEASUREMENT cpu; SHOW DATABASES").map(\.description)
            == ["DROP (not supported)", "SHOW DATABASES"])
    }

    static let errors: [(String, String)] = [
        ("SELEC v FROM m", "found SELEC, expected SELECT, DELETE, SHOW, CREATE, DROP, EXPLAIN, GRANT, REVOKE, ALTER, SET, KILL at line 1, char 1"),
        ("SELECT v FROM", "found EOF, expected identifier at line 1, char 15"),
        ("SELECT FROM m", "found FROM, expected identifier, string, number, bool at line 1, char 8"),
        ("SELECT v m", "found m, expected FROM at line 1, char 10"),
        ("SELECT v FROM m WHERE", "found EOF, expected identifier, string, number, bool at line 1, char 23"),
        ("SELECT v FROM m GROUP time(1m)", "found time, expected BY at line 1, char 23"),
        ("SELECT v FROM m LIMIT -1", "found -, expected integer at line 1, char 23"),
        ("SELECT v FROM m LIMIT 10 10", "found 10, expected ; at line 1, char 26"),
        ("SHOW FOO", "found FOO, expected CONTINUOUS, DATABASES, DIAGNOSTICS, FIELD, GRANTS, MEASUREMENT, MEASUREMENTS, QUERIES, RETENTION, SERIES, SHARD, SHARDS, STATS, SUBSCRIPTIONS, TAG, USERS at line 1, char 6"),
        ("SHOW MEASUREMENTS WITH MEASUREMENT", "found EOF, expected =, =~ at line 1, char 36"),
        ("SHOW TAG VALUES FROM m", "found EOF, expected WITH at line 1, char 24"),
        ("SHOW TAG VALUES WITH KEY host", "found host, expected IN, =, =~ at line 1, char 26"),
        ("SELECT v FROM m WHERE a =~ 'x'", "found x, expected regex at line 1, char 28"),
        ("SELECT mean(v FROM m", "found FROM, expected ) at line 1, char 15"),
        ("SELECT v FROM m\nWHERE", "found EOF, expected identifier, string, number, bool at line 2, char 7"),
        ("SELECT a > 1 FROM m", "invalid operator > in SELECT clause at line 1, char 8; operator is intended for WHERE clause"),
        ("SELECT v FROM m fill(x)", "expected number argument in fill()"),
        ("SELECT v FROM m ORDER BY value", "only ORDER BY time supported at this time"),
        ("SELECT v FROM m tz('Mars/Olympus')", "unable to find time zone Mars/Olympus"),
        ("SELECT v FROM m GROUP BY time(0s)", "time dimension must have positive duration"),
        // No exponents in InfluxQL numbers: `1.5` then a name.
        ("SELECT v FROM m WHERE f = 1.5e3", "found e3, expected ; at line 1, char 30"),
        ("SELECT v FROM m WHERE x =~ /(/", "error parsing regexp: invalid regex /(/ at line 1, char 28"),
    ]

    @Test(arguments: errors)
    func errorsAreInfluxDBs(_ input: String, _ message: String) {
        #expect(throws: InfluxQLParseError(message)) { try InfluxQLParser.parse(input) }
    }

    /// Regression guard: a tree deep enough would overflow the stack of the
    /// code that walks it.
    @Test func deepOrLongExpressionsAreRefusedNotCrashed() {
        let nested = "SELECT " + String(repeating: "(", count: 100_000) + "v" + String(repeating: ")", count: 100_000) + " FROM m"
        #expect(throws: InfluxQLParseError.self) { try InfluxQLParser.parse(nested) }
        let long = "SELECT " + Array(repeating: "v", count: 50_000).joined(separator: " + ") + " FROM m"
        #expect(throws: InfluxQLParseError.self) { try InfluxQLParser.parse(long) }
        #expect(throws: Never.self) { try InfluxQLParser.parse("SELECT " + Array(repeating: "v", count: 500).joined(separator: " + ") + " FROM m") }
    }

    /// Seeded mutations of valid statements and random token soups: the
    /// parser answers every one, statements or an error, and what it parses
    /// prints back to something it parses again the same way.
    @Test func mutatedQueriesNeverCrashTheParser() throws {
        var random = SplitMix64(seed: 2_411)
        let seeds = Self.statements.map(\.0) + InfluxQLDifferentialTests.cases.map(\.query)
        let pieces = ["SELECT", "FROM", "WHERE", "GROUP BY", "time(", ")", "(", ",", ";", "'", "\"", "/", "=~", "!~",
                      "-", "+", "*", "1h", "now()", "fill(", "tz(", "LIMIT", "9223372036854775807", "-9223372036854775808",
                      "99999999999999999999", "µ", "é", "\\", "\n", "::", ".", "..", "SHOW", "TAG", "VALUES", "WITH KEY",
                      "=", "IN", "1e400", "0.", "$x", "--", "/*", "*/", "ORDER BY time DESC", "SLIMIT", "OFFSET"]
        var parsed = 0
        for _ in 0..<20_000 {
            var text = Array(seeds[Int(random.next() % UInt64(seeds.count))].utf8)
            for _ in 0..<(1 + Int(random.next() % 4)) {
                let at = text.isEmpty ? 0 : Int(random.next() % UInt64(text.count + 1))
                switch random.next() % 4 {
                case 0: text.insert(contentsOf: Array(pieces[Int(random.next() % UInt64(pieces.count))].utf8), at: at)
                case 1: if at < text.count { text.removeSubrange(at..<min(text.count, at + 1 + Int(random.next() % 8))) }
                case 2: text.insert(UInt8(truncatingIfNeeded: random.next()), at: at)
                default: if at < text.count { text[at] = UInt8(truncatingIfNeeded: random.next() % 128) }
                }
            }
            let query = String(decoding: text, as: UTF8.self)
            guard let statements = try? InfluxQLParser.parse(query) else { continue }
            parsed += 1
            for statement in statements {
                if case .unsupported = statement { continue }
                let printed = statement.description
                let again = try? InfluxQLParser.parse(printed)
                #expect(again?.map(\.description) == [printed], "\(query) printed as \(printed)")
            }
        }
        #expect(parsed > 1_000)
    }
}
