import Foundation
import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

/// Sensei's /query against a real InfluxDB: the same points written to both
/// through line protocol, the same queries sent to both, the answers
/// compared (floats to 1e-9). InfluxDB is Debian's 1.6; where it answers
/// differently from 1.8, whose answers Sensei gives, the case says so and
/// checks Sensei against 1.8's answer instead.
@Suite("InfluxQL against InfluxDB")
struct InfluxQLDifferentialTests {
    /// 2023-11-14T22:00:00Z, an hour's start.
    static let t0: Int64 = 1_699_999_200
    static func ms(_ seconds: Int64) -> String { "\(seconds * 1000)ms" }

    /// Three hours of two rooms (the kitchen every 30 s with a 20-minute
    /// gap, the living room every minute with an integer humidity), a meter
    /// that counts up and resets once, a door (booleans), hourly points
    /// across Berlin's switch from summer time (2023-10-29 01:00 UTC), and a
    /// few recent points for Home Assistant's `now() - 15m`.
    static func lines(now: Int64) -> String {
        var random = SplitMix64(seed: 24)
        var lines: [String] = []
        for step in Int64(0)..<360 where !(140..<180).contains(step) {
            lines.append("temperature,room=kitchen value=\(Double(1500 + Int(random.next() % 1000)) / 100) \(t0 + step * 30)")
        }
        for step in Int64(0)..<180 {
            // One value in three is 45: mode() has one answer (InfluxDB breaks ties by its unstable sort).
            let humidity = step % 3 == 0 ? 45 : 40 + Int(random.next() % 20)
            lines.append("temperature,room=living value=\(Double(1800 + Int(random.next() % 600)) / 100),hum=\(humidity)i \(t0 + step * 60)")
        }
        var kwh = 100.0
        for step in Int64(0)..<36 {
            kwh = step == 20 ? 0.5 : kwh + Double(Int(random.next() % 300)) / 100
            lines.append("energy,meter=main kwh=\((kwh * 100).rounded() / 100) \(t0 + step * 300)")
        }
        for step in Int64(0)..<18 {
            lines.append("door,area=hall open=\(random.next() % 2 == 0 ? "true" : "false") \(t0 + step * 600)")
        }
        let dstStart: Int64 = 1_698_364_800  // 2023-10-27T00:00:00Z
        for step in Int64(0)..<(5 * 24) {
            lines.append("dst,room=x value=\(Double(step % 24) + 0.5) \(dstStart + step * 3600)")
        }
        for minutes: Int64 in [2, 7, 11, 40] {
            lines.append("temperature,room=living value=\(20 + Double(minutes) / 4) \(now - minutes * 60)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    struct Case {
        var query: String
        var epoch: String?
        /// Compare everything but the time column (now() moves between the two servers).
        var ignoreTime = false
        /// 1.8's answer where 1.6's differs, and how.
        var expected18: String?
        var difference: String?
    }

    static var cases: [Case] {
        let range = "time >= \(ms(t0)) and time <= \(ms(t0 + 3 * 3600))"
        let short = "time >= \(ms(t0 + 5400)) and time < \(ms(t0 + 5400 + 900))"
        let dst = "time >= '2023-10-28T00:00:00Z' AND time < '2023-10-31T00:00:00Z'"
        var cases: [Case] = [
            // Grafana: health check, editor, template variables, panels.
            Case(query: "SHOW measurements", epoch: "ms"),
            Case(query: "SHOW DATABASES"),
            Case(query: "SHOW RETENTION POLICIES ON home"),
            Case(query: "SHOW MEASUREMENTS WITH MEASUREMENT =~ /(?i)TEMP/ LIMIT 100"),
            Case(query: "SHOW MEASUREMENTS WITH MEASUREMENT = door"),
            Case(query: "SHOW MEASUREMENTS WHERE room = 'kitchen'"),
            Case(query: "SHOW MEASUREMENTS LIMIT 2 OFFSET 1"),
            Case(query: "SHOW TAG KEYS"),
            Case(query: "SHOW TAG KEYS FROM \"temperature\""),
            Case(query: "SHOW TAG VALUES WITH KEY = \"room\""),
            Case(query: "SHOW TAG VALUES FROM \"temperature\" WITH KEY = \"room\""),
            Case(query: "SHOW TAG VALUES WITH KEY IN (room, meter)"),
            Case(query: "SHOW TAG VALUES WITH KEY =~ /^r/"),
            Case(query: "SHOW TAG VALUES WITH KEY = room WHERE room =~ /^k/"),
            Case(query: "SHOW FIELD KEYS"),
            Case(query: "SHOW FIELD KEYS FROM temperature"),
            Case(query: "SHOW SERIES"),
            Case(query: "SHOW SERIES FROM temperature WHERE room = 'living'"),
            Case(query: "SELECT mean(\"value\") FROM \"temperature\" WHERE (\"room\" = 'kitchen') AND \(range) GROUP BY time(1m) fill(null)", epoch: "ms"),
            Case(query: "SELECT mean(\"value\") FROM \"temperature\" WHERE \(range) GROUP BY time(10m), \"room\" fill(none)"),
            Case(query: "SELECT max(\"value\") FROM \"autogen\".\"temperature\" WHERE \(range) GROUP BY time(1h)"),
            Case(query: "SELECT mean(value) FROM \"home\".\"autogen\".\"temperature\" WHERE \(range) GROUP BY time(30m)"),
            // Home Assistant's sensor.
            Case(query: "select mean(value) as value from \"temperature\" where \"room\" = 'living' and time > now() - 15m",
                 ignoreTime: true),
            Case(query: "select last(value) as value from \"temperature\" where \"room\" = 'living' and time > now() - 15m",
                 ignoreTime: true),
            // Raw selects.
            Case(query: "SELECT value FROM temperature WHERE \(short)"),
            Case(query: "SELECT * FROM temperature WHERE \(short)"),
            Case(query: "SELECT value, hum FROM temperature WHERE \(short)"),
            Case(query: "SELECT value * 2 + 1 AS twice, hum - 40 FROM temperature WHERE room = 'living' AND \(short)"),
            Case(query: "SELECT value FROM temperature WHERE value > 22 AND \(short)"),
            Case(query: "SELECT value FROM temperature WHERE (room = 'kitchen' OR hum > 50) AND \(short)"),
            Case(query: "SELECT value FROM temperature WHERE room != 'kitchen' AND \(short)"),
            Case(query: "SELECT value FROM temperature WHERE room =~ /^liv/ AND \(short)"),
            Case(query: "SELECT value FROM temperature WHERE room !~ /^liv/ AND \(short)"),
            Case(query: "SELECT value FROM temperature WHERE \(short) ORDER BY time DESC LIMIT 5 OFFSET 2"),
            Case(query: "SELECT value FROM temperature WHERE \(short) GROUP BY room"),
            Case(query: "SELECT value FROM temperature WHERE \(short) GROUP BY * SLIMIT 1 SOFFSET 1"),
            Case(query: "SELECT * FROM /^(door|energy)$/ WHERE \(range) LIMIT 3"),
            Case(query: "SELECT value FROM temperature, dst WHERE \(short)", epoch: "s"),
            Case(query: "SELECT open FROM door WHERE \(range)"),
            Case(query: "SELECT value FROM temperature WHERE time >= '2023-11-14T23:30:00Z' AND time < '2023-11-14T23:32:00Z'"),
            Case(query: "SELECT value FROM temperature WHERE time >= '2023-11-14 23:30:00' AND time < '2023-11-14T23:31:00.5Z'", epoch: "ns"),
            Case(query: "SELECT value FROM temperature WHERE time >= \((t0 + 5400) * 1_000_000_000) AND time < \((t0 + 5460) * 1_000_000_000)", epoch: "u"),
            // Every aggregate, with and without GROUP BY time.
            Case(query: "SELECT count(value), mean(value), median(value), mode(value), sum(value) FROM temperature WHERE \(range)"),
            Case(query: "SELECT min(value), max(value), first(value), last(value), spread(value), stddev(value) FROM temperature WHERE \(range)"),
            Case(query: "SELECT percentile(value, 90), percentile(value, 5) FROM temperature WHERE \(range) GROUP BY room"),
            Case(query: "SELECT min(value) FROM temperature WHERE \(range)"),
            Case(query: "SELECT max(value) FROM temperature WHERE \(range) GROUP BY room"),
            Case(query: "SELECT first(value) FROM temperature WHERE \(range)"),
            Case(query: "SELECT last(value) FROM temperature WHERE \(range)"),
            // A selector's time is its point's (values unique here: InfluxDB picks among equal ones by an unstable sort).
            Case(query: "SELECT percentile(kwh, 50) FROM energy WHERE \(range)"),
            Case(query: "SELECT distinct(hum) FROM temperature WHERE \(short)"),
            Case(query: "SELECT count(distinct(hum)) FROM temperature WHERE \(range) GROUP BY time(1h)"),
            Case(query: "SELECT count(distinct(hum)) FROM temperature WHERE \(range)"),
            Case(query: "SELECT count(value), sum(hum), min(hum), max(hum), mean(hum) FROM temperature WHERE \(range) GROUP BY time(30m)"),
            Case(query: "SELECT median(value), mode(hum), spread(value), stddev(value) FROM temperature WHERE \(range) GROUP BY time(30m), room"),
            Case(query: "SELECT first(value), last(value), percentile(value, 75) FROM temperature WHERE \(range) GROUP BY time(45m)"),
            Case(query: "SELECT mean(value) FROM temperature WHERE \(range) GROUP BY time(10m, 3m)"),
            Case(query: "SELECT sum(value) FROM temperature WHERE room = 'kitchen' AND value > 20 AND \(range) GROUP BY time(20m)"),
            Case(query: "SELECT mean(value) * 2, max(value) - min(value) AS swing FROM temperature WHERE \(range) GROUP BY time(1h)"),
            Case(query: "SELECT mean(*) FROM temperature WHERE \(range) GROUP BY time(1h)"),
            Case(query: "SELECT count(open) FROM door WHERE \(range) GROUP BY time(1h)"),
            // Fills over the kitchen's gap.
            Case(query: "SELECT mean(value) FROM temperature WHERE room = 'kitchen' AND \(range) GROUP BY time(5m) fill(none)"),
            Case(query: "SELECT mean(value) FROM temperature WHERE room = 'kitchen' AND \(range) GROUP BY time(5m) fill(previous)"),
            Case(query: "SELECT mean(value) FROM temperature WHERE room = 'kitchen' AND \(range) GROUP BY time(5m) fill(linear)"),
            Case(query: "SELECT mean(value) FROM temperature WHERE room = 'kitchen' AND \(range) GROUP BY time(5m) fill(-1)"),
            Case(query: "SELECT count(value) FROM temperature WHERE room = 'kitchen' AND \(range) GROUP BY time(5m) fill(null)"),
            Case(query: "SELECT mean(value) FROM temperature WHERE room = 'kitchen' AND \(range) GROUP BY time(5m) fill(null) ORDER BY time DESC LIMIT 4"),
            // Integral and the transformations.
            Case(query: "SELECT integral(kwh) FROM energy WHERE \(range)"),
            Case(query: "SELECT integral(kwh, 1h) FROM energy WHERE \(range) GROUP BY time(40m)"),
            Case(query: "SELECT derivative(value, 1m) FROM temperature WHERE room = 'living' AND \(short)"),
            Case(query: "SELECT derivative(kwh) FROM energy WHERE \(range)"),
            Case(query: "SELECT non_negative_derivative(kwh, 1h) FROM energy WHERE \(range)"),
            Case(query: "SELECT difference(kwh) FROM energy WHERE \(range)"),
            Case(query: "SELECT non_negative_difference(kwh) FROM energy WHERE \(range)"),
            Case(query: "SELECT moving_average(value, 3) FROM temperature WHERE room = 'living' AND \(short)"),
            Case(query: "SELECT cumulative_sum(kwh) FROM energy WHERE \(range)"),
            Case(query: "SELECT elapsed(kwh, 1s) FROM energy WHERE \(range)"),
            Case(query: "SELECT derivative(mean(value), 1m) FROM temperature WHERE \(range) GROUP BY time(10m)"),
            Case(query: "SELECT non_negative_derivative(max(kwh)) FROM energy WHERE \(range) GROUP BY time(15m)"),
            Case(query: "SELECT difference(mean(value)) FROM temperature WHERE \(range) GROUP BY time(30m), room"),
            Case(query: "SELECT moving_average(mean(value), 2) FROM temperature WHERE \(range) GROUP BY time(30m)"),
            Case(query: "SELECT cumulative_sum(count(value)) FROM temperature WHERE \(range) GROUP BY time(30m)"),
            // Time zones across a daylight-saving change.
            Case(query: "SELECT mean(value) FROM dst WHERE \(dst) GROUP BY time(1d) tz('Europe/Berlin')"),
            Case(query: "SELECT count(value) FROM dst WHERE time >= '2023-10-28T22:00:00Z' AND time < '2023-10-29T04:00:00Z' GROUP BY time(1h) tz('Europe/Berlin')"),
            Case(query: "SELECT value FROM dst WHERE time >= '2023-10-29T00:00:00Z' AND time < '2023-10-29T03:00:00Z' tz('Europe/Berlin')"),
            Case(query: "SELECT max(value) FROM dst WHERE \(dst) tz('America/New_York')"),
            // Empty answers.
            Case(query: "SELECT mean(value) FROM temperature WHERE time > '2020-01-01T00:00:00Z' AND time < '2020-01-02T00:00:00Z'"),
            Case(query: "SELECT mean(value) FROM temperature WHERE time > '2020-01-01T00:00:00Z' AND time < '2020-01-01T01:00:00Z' GROUP BY time(10m)"),
            Case(query: "SELECT value FROM nothing_here"),
            Case(query: "SELECT value FROM temperature WHERE room = 'attic'"),
            Case(query: "SHOW TAG VALUES FROM nothing_here WITH KEY = room"),
            // Errors, per statement and whole.
            Case(query: "SELECT mean(value), value FROM temperature"),
            Case(query: "SELECT value FROM temperature GROUP BY time(1m)"),
            Case(query: "SELECT foo(value) FROM temperature"),
            Case(query: "SELECT percentile(value) FROM temperature"),
            Case(query: "SHOW DATABASES; SELECT count(value) FROM temperature WHERE \(range); SELECT mean(value), value FROM temperature"),
            Case(query: "SELECT value FROM"),
            Case(query: "SELECT FROM temperature"),
            Case(query: "SELECT value FROM temperature WHERE"),
            Case(query: "SHOW MEASUREMENTS WITH MEASUREMENT"),
            Case(query: "SELECT value FROM temperature GROUP BY time(1m) fill(banana)"),
            Case(query: "SELECT value FROM temperature LIMIT -1"),
            Case(query: "SHOW DATABASES SHOW DATABASES"),
        ]
        cases.append(Case(
            query: "SELEC value FROM temperature",
            expected18: #"{"error":"error parsing query: found SELEC, expected SELECT, DELETE, SHOW, CREATE, DROP, EXPLAIN, GRANT, REVOKE, ALTER, SET, KILL at line 1, char 1"}"#,
            difference: "1.6 lists the same words; kept as the literal 1.8 text"))
        return cases
    }

    @Test func sameAnswersAsInfluxDB() async throws {
        let influx: InfluxDBServer
        switch await InfluxDBServer.sharedStarted {
        case .success(let server): influx = server
        case .failure(let reason):
            Issue.record("the differential test needs InfluxDB: \(reason)")
            return
        }
        try await withTestServer { sensei in
            let now = Int64(Date().timeIntervalSince1970)
            let body = Array(Self.lines(now: now).utf8)
            let database = "sensei_diff_\(UInt32.random(in: 0...UInt32.max))"
            #expect(try await influx.request("POST", "/query?q=" + Self.encode("CREATE DATABASE \(database)")).status == 200)
            let influxWrite = try await influx.request("POST", "/write?db=\(database)&precision=s", body: body)
            #expect(influxWrite.status == 204, "\(influxWrite.text)")
            let senseiWrite = try await sensei.writer.request("POST", "/write?db=\(database)&precision=s", body: body)
            #expect(senseiWrite.status == 204, "\(senseiWrite.text)")
            var failures: [String] = []
            for testCase in Self.cases {
                let query = testCase.query.replacingOccurrences(of: "\"home\"", with: "\"\(database)\"")
                    .replacingOccurrences(of: " home", with: " \(database)")
                var path = "/query?db=\(database)&q=" + Self.encode(query)
                if let epoch = testCase.epoch { path += "&epoch=\(epoch)" }
                let theirs = try await influx.request("GET", path)
                let ours = try await sensei.reader.get(path)
                let reference = testCase.expected18 ?? theirs.text
                if testCase.expected18 != nil {
                    if ours.text.trimmingCharacters(in: .newlines) != reference { failures.append("\(query)\n  1.8: \(reference)\n  ours: \(ours.text)") }
                    continue
                }
                if ours.status != theirs.status {
                    failures.append("\(query)\n  status \(theirs.status) vs ours \(ours.status)\n  theirs: \(theirs.text.prefix(400))\n  ours: \(ours.text.prefix(400))")
                    continue
                }
                guard let a = try? JSONParser.parse(theirs.body), let b = try? JSONParser.parse(ours.body) else {
                    failures.append("\(query)\n  unparsable: theirs \(theirs.text.prefix(200)) ours \(ours.text.prefix(200))")
                    continue
                }
                var differences: [String] = []
                Self.compare(Self.tiesSorted(a), Self.tiesSorted(b), path: "", ignoreTime: testCase.ignoreTime, into: &differences)
                if !differences.isEmpty {
                    failures.append("\(query)\n  " + differences.prefix(3).joined(separator: "\n  ")
                                    + "\n  theirs: \(theirs.text.prefix(600))\n  ours:   \(ours.text.prefix(600))")
                }
            }
            #expect(failures.isEmpty, "\(failures.count) of \(Self.cases.count) differ:\n\n\(failures.joined(separator: "\n\n"))")
        }
    }

    /// Rows of one series at the same time put in one order: InfluxDB merges
    /// the points of several series at one instant in no fixed order (its
    /// heap compares times only without GROUP BY), so only the set counts.
    static func tiesSorted(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let members):
            var sorted = members.mapValues(tiesSorted)
            if case .array(let rows)? = members["values"] {
                sorted["values"] = .array(rows.enumerated().sorted { x, y in
                    let (a, b) = ("\(x.element.arrayValue?.first ?? .null)", "\(y.element.arrayValue?.first ?? .null)")
                    return a != b ? x.offset < y.offset : "\(x.element)" < "\(y.element)"
                }.map(\.element))
            }
            return .object(sorted)
        case .array(let items): return .array(items.map(tiesSorted))
        default: return value
        }
    }

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }

    /// Structural equality; numbers within 1e-9 (relative past 1); with
    /// `ignoreTime`, the first cell of each row is not compared.
    static func compare(_ a: JSONValue, _ b: JSONValue, path: String, ignoreTime: Bool, into differences: inout [String]) {
        switch (a, b) {
        case (.number(let x), .number(let y)):
            if abs(x - y) > 1e-9 * max(1, abs(x)) { differences.append("\(path): \(x) vs \(y)") }
        case (.object(let x), .object(let y)):
            for key in Set(x.keys).union(y.keys) {
                guard let left = x[key], let right = y[key] else {
                    differences.append("\(path).\(key): only in \(x[key] == nil ? "ours" : "theirs")")
                    continue
                }
                compare(left, right, path: path + "." + key, ignoreTime: ignoreTime, into: &differences)
            }
        case (.array(let x), .array(let y)):
            guard x.count == y.count else {
                differences.append("\(path): \(x.count) items vs \(y.count)")
                return
            }
            let isRow = path.hasSuffix(".values")
            for (index, (left, right)) in zip(x, y).enumerated() {
                if ignoreTime, path.hasSuffix(".values]"), index == 0 { continue }
                compare(left, right, path: path + (isRow ? ".values]" : "[\(index)]"), ignoreTime: ignoreTime, into: &differences)
            }
        default:
            if a != b { differences.append("\(path): \(a) vs \(b)") }
        }
    }
}
