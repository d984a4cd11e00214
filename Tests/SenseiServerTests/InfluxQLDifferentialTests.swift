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
    /// few recent points for Home Assistant's `now() - 15m`; then three
    /// rooms read at the same instants and a meter of two fields
    /// (`InfluxQLDifferentialTests+Data.swift`).
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
        lines += climateLines() + powerLines()
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
        /// Ask for `Accept: application/csv`.
        var csv = false
        /// Ask with `chunked=true`.
        var chunked = false
    }

    static var cases: [Case] { baseCases + orderCases + functionCases + protocolCases }

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
            let cases = Self.cases
            for testCase in cases {
                let query = testCase.query.replacingOccurrences(of: "\"home\"", with: "\"\(database)\"")
                    .replacingOccurrences(of: " home", with: " \(database)")
                var path = "/query?db=\(database)&q=" + Self.encode(query)
                if let epoch = testCase.epoch { path += "&epoch=" + Self.encode(epoch) }
                if testCase.chunked { path += "&chunked=true" }
                let headers = testCase.csv ? ["Accept": "application/csv"] : [:]
                let theirs = try await influx.request("GET", path, headers: headers)
                let ours = try await sensei.reader.request("GET", path, headers: headers)
                let label = query + (testCase.epoch.map { "  [epoch=\($0)]" } ?? "") + (testCase.csv ? "  [csv]" : "")
                    + (testCase.chunked ? "  [chunked]" : "")
                if let failure = Self.difference(testCase, theirs: theirs, ours: ours) { failures.append(label + "\n  " + failure) }
            }
            #expect(cases.count >= 300)
            #expect(failures.isEmpty, "\(failures.count) of \(cases.count) differ:\n\n\(failures.joined(separator: "\n\n"))")
        }
    }

    /// How Sensei's answer differs from InfluxDB's, or nil.
    static func difference(_ testCase: Case, theirs: HTTPResponse, ours: HTTPResponse) -> String? {
        if let expected = testCase.expected18 {
            let text = ours.text.trimmingCharacters(in: .newlines)
            return text == expected ? nil : "1.8: \(expected)\n  ours: \(ours.text)"
        }
        let both = "\n  theirs: \(theirs.text.prefix(700))\n  ours:   \(ours.text.prefix(700))"
        guard ours.status == theirs.status else { return "status \(theirs.status) vs ours \(ours.status)" + both }
        var differences: [String] = []
        if testCase.csv {
            compareCSV(theirs.text, ours.text, into: &differences)
        } else {
            // Chunked: one JSON object a line, compared line by line.
            let theirLines = theirs.text.split(separator: "\n"), ourLines = ours.text.split(separator: "\n")
            guard theirLines.count == ourLines.count else { return "\(theirLines.count) lines vs \(ourLines.count)" + both }
            for (left, right) in zip(theirLines, ourLines) {
                guard let a = try? JSONParser.parse(Array(left.utf8)), let b = try? JSONParser.parse(Array(right.utf8)) else {
                    return "unparsable" + both
                }
                compare(a, b, path: "", ignoreTime: testCase.ignoreTime, into: &differences)
            }
        }
        return differences.isEmpty ? nil : differences.prefix(3).joined(separator: "\n  ") + both
    }

    /// CSV cell by cell, numbers within 1e-9 (relative past 1).
    static func compareCSV(_ theirs: String, _ ours: String, into differences: inout [String]) {
        let theirLines = theirs.components(separatedBy: "\n"), ourLines = ours.components(separatedBy: "\n")
        guard theirLines.count == ourLines.count else {
            differences.append("\(theirLines.count) lines vs \(ourLines.count)")
            return
        }
        for (index, (left, right)) in zip(theirLines, ourLines).enumerated() where left != right {
            let a = left.components(separatedBy: ","), b = right.components(separatedBy: ",")
            let same = a.count == b.count && zip(a, b).allSatisfy { x, y in
                guard x != y else { return true }
                guard let p = Double(x), let q = Double(y) else { return false }
                return abs(p - q) <= 1e-9 * max(1, abs(p))
            }
            if !same { differences.append("line \(index + 1): \(left) vs \(right)") }
        }
    }

    /// Percent-encodes all but ASCII letters and digits (µ too).
    static func encode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                out.append(Character(Unicode.Scalar(byte)))
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    /// Structural equality, rows in order; numbers within 1e-9 (relative
    /// past 1); with `ignoreTime`, the first cell of each row is not compared.
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
