import Foundation
import SenseiModels
import SenseiTestSupport
import Testing

/// Zones from the system's tz database, checked against glibc's own reading of
/// the same files (`date`), and the 2025 changes checked by hand.
@Suite struct TimeZoneRulesTests {
    /// 2025-03-30 01:00 UTC, Berlin springs forward; 2025-10-26 01:00 UTC it falls back.
    @Test func berlinIn2025() throws {
        let berlin = try TimeZoneRules.named("Europe/Berlin")
        let spring = Timestamp(rfc3339: "2025-03-30T01:00:00Z")!.milliseconds / 1000
        let autumn = Timestamp(rfc3339: "2025-10-26T01:00:00Z")!.milliseconds / 1000
        #expect(berlin.offset(atUTCSeconds: spring - 1) == 3600)
        #expect(berlin.offset(atUTCSeconds: spring) == 7200)
        #expect(berlin.offset(atUTCSeconds: autumn - 1) == 7200)
        #expect(berlin.offset(atUTCSeconds: autumn) == 3600)
    }

    /// 2025-03-09 07:00 UTC, New York springs forward; 2025-11-02 06:00 UTC it falls back.
    @Test func newYorkIn2025() throws {
        let newYork = try TimeZoneRules.named("America/New_York")
        let spring = Timestamp(rfc3339: "2025-03-09T07:00:00Z")!.milliseconds / 1000
        let autumn = Timestamp(rfc3339: "2025-11-02T06:00:00Z")!.milliseconds / 1000
        #expect(newYork.offset(atUTCSeconds: spring - 1) == -5 * 3600)
        #expect(newYork.offset(atUTCSeconds: spring) == -4 * 3600)
        #expect(newYork.offset(atUTCSeconds: autumn - 1) == -4 * 3600)
        #expect(newYork.offset(atUTCSeconds: autumn) == -5 * 3600)
    }

    /// Random instants from 1900 to 2150 (past the files' tables, where the
    /// footer's rule holds) in zones of both hemispheres and odd offsets: the
    /// same offset as glibc gives.
    @Test(arguments: ["Europe/Berlin", "America/New_York", "Australia/Sydney", "Asia/Kolkata",
                      "Australia/Lord_Howe", "America/Santiago", "Pacific/Chatham", "UTC", "America/St_Johns"])
    func agreesWithGlibc(zone: String) throws {
        let rules = try TimeZoneRules.named(zone)
        var generator = SplitMix64(seed: UInt64(truncatingIfNeeded: zone.hashValue & 0xFFFF))
        let instants = (0..<400).map { _ in Int64.random(in: -2_208_988_800...5_680_281_600, using: &generator) }
        let expected = try glibcOffsets(zone: zone, instants: instants)
        for (instant, offset) in zip(instants, expected) {
            #expect(Int(rules.offset(atUTCSeconds: instant)) == offset, "\(zone) at \(instant)")
        }
    }

    @Test func rejectsBadNames() {
        for name in ["", "../etc/passwd", "/etc/passwd", "Europe/../../etc", "Europe/Berlin ", "Nowhere/City"] {
            #expect(throws: TimeZoneError.self) { try TimeZoneRules.named(name) }
        }
        #expect((try? TimeZoneRules.named("Nowhere/City"))?.identifier == nil)
        do {
            _ = try TimeZoneRules.named("Mars/Olympus_Mons")
        } catch {
            #expect(error.description == "unknown time zone \"Mars/Olympus_Mons\"")
        }
    }

    @Test func rejectsFilesThatAreNotZones() throws {
        #expect(throws: TimeZoneError.self) { try TimeZoneRules(identifier: "x", tzif: Array("hello".utf8)) }
        let berlin = try readZoneFile("Europe/Berlin")
        for cut in [10, 44, 60, berlin.count / 2] {
            #expect(throws: TimeZoneError.self) { try TimeZoneRules(identifier: "x", tzif: Array(berlin[..<cut])) }
        }
    }

    private func readZoneFile(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: TimeZoneRules.systemDirectory + "/" + name)))
    }

    /// `date -f` converts every `@seconds` line of a file in one process; `%::z`
    /// keeps the seconds of local mean time (Kolkata's +05:21:10 before 1941).
    private func glibcOffsets(zone: String, instants: [Int64]) throws -> [Int] {
        try withScratchDirectory { directory in
            let input = directory + "/instants"
            try instants.map { "@\($0)" }.joined(separator: "\n").write(toFile: input, atomically: true, encoding: .utf8)
            let result = try runTool("date", ["-f", input, "+%::z"], environment: ["TZ": zone])
            #expect(result.status == 0, "\(result.error)")
            return result.output.split(separator: "\n").map { line in
                let sign = line.hasPrefix("-") ? -1 : 1
                let fields = line.dropFirst().split(separator: ":").map { Int($0)! }
                return sign * (fields[0] * 3600 + fields[1] * 60 + fields[2])
            }
        }
    }
}
