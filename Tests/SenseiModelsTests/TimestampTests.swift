import SenseiModels
import Testing

/// 2025-01-09T12:00:00Z, the instant the wire contract's examples use.
private let noonMs: Int64 = 1_736_424_000_000

// Expected instants were worked out independently of the code under test
// (days since 1970 counted by hand and cross-checked with another calendar library).
private let formattedInstants: [(Int64, String)] = [
    (noonMs, "2025-01-09T12:00:00Z"),
    (1_736_416_800_000, "2025-01-09T10:00:00Z"),
    (noonMs + 500, "2025-01-09T12:00:00.500Z"),
    (noonMs + 1, "2025-01-09T12:00:00.001Z"),
    (noonMs + 10, "2025-01-09T12:00:00.010Z"),
    (noonMs + 999, "2025-01-09T12:00:00.999Z"),
    (0, "1970-01-01T00:00:00Z"),
    (1, "1970-01-01T00:00:00.001Z"),
    (-1, "1969-12-31T23:59:59.999Z"),
    (-1_000, "1969-12-31T23:59:59Z"),
    (-999, "1969-12-31T23:59:59.001Z"),
    (-86_400_000, "1969-12-31T00:00:00Z"),
    (-14_182_940_000, "1969-07-20T20:17:40Z"),
    (1_709_164_800_000, "2024-02-29T00:00:00Z"),
    (951_868_799_999, "2000-02-29T23:59:59.999Z"),
    (13_574_606_400_000, "2400-02-29T12:00:00Z"),
    (-2_203_977_600_000, "1900-02-28T00:00:00Z"),
    (-2_203_891_200_000, "1900-03-01T00:00:00Z"),
    (4_107_542_400_000, "2100-03-01T00:00:00Z"),
    (-11_670_912_000_000, "1600-03-01T00:00:00Z"),
    (-62_035_891_200_000, "0004-02-29T00:00:00Z"),
    (-62_135_596_800_000, "0001-01-01T00:00:00Z"),
    (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
    (253_402_300_799_000, "9999-12-31T23:59:59Z"),
    (2_147_483_647_000, "2038-01-19T03:14:07Z"),
    (946_684_799_123, "1999-12-31T23:59:59.123Z"),
    (1_767_225_599_500, "2025-12-31T23:59:59.500Z"),
]

private let parsedInstants: [(String, Int64)] = [
    ("2025-01-09T12:00:00Z", noonMs),
    ("2025-01-09T12:00:00z", noonMs),
    ("2025-01-09t12:00:00Z", noonMs),
    ("2025-01-09 12:00:00Z", noonMs),
    ("2025-01-09T12:00:00+00:00", noonMs),
    ("2025-01-09T12:00:00-00:00", noonMs),
    ("2025-01-09T13:00:00+01:00", noonMs),
    ("2025-01-09T07:30:00-04:30", noonMs),
    ("2025-01-09T17:30:00+05:30", noonMs),
    ("2025-01-10T11:59:00+23:59", noonMs),
    ("2025-01-08T12:01:00-23:59", noonMs),
    ("2025-01-09T13:00:00.250+01:00", noonMs + 250),
    ("2025-01-09t12:00:00.5z", noonMs + 500),
    ("1970-01-01T00:00:00Z", 0),
    ("1970-01-01T00:00:00+14:00", -50_400_000),
    ("1969-12-31T23:59:59.999Z", -1),
    ("1969-07-20T20:17:40Z", -14_182_940_000),
    ("2024-02-29T00:00:00Z", 1_709_164_800_000),
    ("2000-02-29T23:59:59.999Z", 951_868_799_999),
    ("2400-02-29T12:00:00Z", 13_574_606_400_000),
    ("0004-02-29T00:00:00Z", -62_035_891_200_000),
    ("0001-01-01T00:00:00Z", -62_135_596_800_000),
    ("0001-01-01T01:00:00+01:00", -62_135_596_800_000),
    ("9999-12-31T23:59:59.999Z", 253_402_300_799_999),
    ("9999-12-31T22:59:59.999-01:00", 253_402_300_799_999),
]

private let invalidTimes: [String] = [
    "",
    "garbage",
    "hello world, this is not a time at all",
    "1736424000",
    "2025-01-09",
    "2025-01-09T12:00:00",
    "2025-01-09T12:00Z",
    "2025-01-09T12:00:00.123",
    "2025-02-30T00:00:00Z",
    "2025-02-29T00:00:00Z",
    "1900-02-29T00:00:00Z",
    "2100-02-29T00:00:00Z",
    "2025-04-31T00:00:00Z",
    "2025-06-31T00:00:00Z",
    "2025-13-01T00:00:00Z",
    "2025-00-10T00:00:00Z",
    "2025-01-00T00:00:00Z",
    "2025-01-32T00:00:00Z",
    "2025-01-09T24:00:00Z",
    "2025-01-09T12:60:00Z",
    "2025-01-09T12:00:60Z",
    "0000-01-01T00:00:00Z",
    "-0001-01-01T00:00:00Z",
    "+2025-01-09T12:00:00Z",
    "25-01-09T12:00:00Z",
    "2025-1-09T12:00:00Z",
    "2025/01/09T12:00:00Z",
    "2025-01-09X12:00:00Z",
    "2025-01-09T12.00.00Z",
    "2025-01-09T12:00:00.Z",
    "2025-01-09T12:00:00.1.2Z",
    "2025-01-09T12:00:00 Z",
    "2025-01-09T12:00:00UTC",
    "2025-01-09T12:00:00ZZ",
    "2025-01-09T12:00:00Z ",
    " 2025-01-09T12:00:00Z",
    "2025-01-09T12:00:00Zx",
    "2025-01-09T12:00:00+01:00Z",
    "2025-01-09T12:00:00+01:00:00",
    "2025-01-09T12:00:00+0100",
    "2025-01-09T12:00:00+01",
    "2025-01-09T12:00:00+1:00",
    "2025-01-09T12:00:00+24:00",
    "2025-01-09T12:00:00+01:60",
    "2025-01-09T12:00:00\u{0}Z",
    "２０２５-01-09T12:00:00Z",
    "2025-01-09T12:00:00Ｚ",
    // Inside the calendar but outside years 1 to 9999 once the offset is applied.
    "0001-01-01T00:00:00+00:01",
    "9999-12-31T23:59:59-00:01",
]

@Suite struct TimestampTests {
    // MARK: formatting

    @Test(arguments: formattedInstants)
    func formatsRFC3339(milliseconds: Int64, expected: String) {
        let timestamp = Timestamp(milliseconds: milliseconds)
        #expect(timestamp.rfc3339 == expected)
        #expect(timestamp.description == expected)
        var bytes: [UInt8] = [UInt8(ascii: "<")]
        timestamp.appendRFC3339(to: &bytes)
        #expect(bytes == Array("<\(expected)".utf8))
    }

    @Test func wholeSecondsHaveNoFraction() {
        #expect(Timestamp(milliseconds: noonMs).rfc3339.count == 20)
        #expect(Timestamp(milliseconds: noonMs + 7).rfc3339.count == 24)
        #expect(Timestamp(milliseconds: noonMs + 100).rfc3339 == "2025-01-09T12:00:00.100Z")
    }

    @Test func components() {
        // 2024-02-29T01:02:03.004Z
        let c = Timestamp(milliseconds: 1_709_164_800_000 + 3_723_004).components
        #expect(c.year == 2024)
        #expect(c.month == 2)
        #expect(c.day == 29)
        #expect(c.hour == 1)
        #expect(c.minute == 2)
        #expect(c.second == 3)
        #expect(c.millisecond == 4)

        let before = Timestamp(milliseconds: -1).components
        #expect(before.year == 1969)
        #expect(before.month == 12)
        #expect(before.day == 31)
        #expect(before.hour == 23)
        #expect(before.minute == 59)
        #expect(before.second == 59)
        #expect(before.millisecond == 999)
    }

    @Test func rangeIsYearsOneTo9999() {
        #expect(Timestamp.range.lowerBound == -62_135_596_800_000)
        #expect(Timestamp.range.upperBound == 253_402_300_799_999)
    }

    // MARK: parsing

    @Test(arguments: parsedInstants)
    func parsesRFC3339(text: String, milliseconds: Int64) {
        #expect(Timestamp(rfc3339: text) == Timestamp(milliseconds: milliseconds))
        #expect(Timestamp(parameter: text) == Timestamp(milliseconds: milliseconds))
    }

    /// Fractions of any length are read to the millisecond and the rest dropped, never rounded.
    @Test(arguments: [
        (".1", 100), (".12", 120), (".123", 123), (".1234", 123), (".12345", 123),
        (".123456", 123), (".1234567", 123), (".12345678", 123), (".123456789", 123),
        (".9", 900), (".99", 990), (".999", 999), (".9999", 999), (".999999999", 999),
        (".05", 50), (".005", 5), (".0005", 0), (".000000001", 0), (".000", 0),
        (".1234567890123", 123),
    ] as [(String, Int64)])
    func truncatesFractionToMilliseconds(fraction: String, milliseconds: Int64) {
        #expect(Timestamp(rfc3339: "2025-01-09T12:00:00\(fraction)Z") == Timestamp(milliseconds: noonMs + milliseconds))
        #expect(Timestamp(rfc3339: "2025-01-09T13:00:00\(fraction)+01:00")
                == Timestamp(milliseconds: noonMs + milliseconds))
    }

    @Test(arguments: invalidTimes)
    func rejectsInvalidTimes(text: String) {
        #expect(Timestamp(rfc3339: text) == nil)
    }

    // MARK: epoch seconds

    @Test(arguments: [
        (0, 0),
        (1_736_424_000, noonMs),
        (1_736_424_000.5, noonMs + 500),
        (1_736_424_000.123, noonMs + 123),
        (1_736_424_000.9996, noonMs + 1_000),
        (1_736_424_000.0004, noonMs),
        (-1.5, -1_500),
        (-0.001, -1),
        // Exactly half a millisecond (binary-exact) rounds away from zero.
        (0.0625, 63),
        (-0.0625, -63),
        (0.0004, 0),
        (0.0006, 1),
        (1e-9, 0),
        (-62_135_596_800, -62_135_596_800_000),
        (253_402_300_799.999, 253_402_300_799_999),
    ] as [(Double, Int64)])
    func epochSeconds(seconds: Double, milliseconds: Int64) {
        #expect(Timestamp(epochSeconds: seconds) == Timestamp(milliseconds: milliseconds))
    }

    @Test(arguments: [
        Double.nan, .infinity, -.infinity, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
        1e300, -1e300, 253_402_300_800, -62_135_596_800.001, -62_135_596_801, 1e15,
    ])
    func epochSecondsOutsideTheRangeAreRejected(seconds: Double) {
        #expect(Timestamp(epochSeconds: seconds) == nil)
    }

    @Test func epochSecondsOfATimestamp() {
        #expect(Timestamp(milliseconds: 1_500).epochSeconds == 1.5)
        #expect(Timestamp(milliseconds: -1).epochSeconds == -0.001)
        #expect(Timestamp(milliseconds: noonMs).epochSeconds == 1_736_424_000)
    }

    // MARK: query parameters

    @Test(arguments: [
        ("2025-01-09T12:00:00Z", noonMs),
        ("2025-01-09T13:00:00.250+01:00", noonMs + 250),
        ("1736424000", noonMs),
        ("1736424000.5", noonMs + 500),
        ("1736424000.1234", noonMs + 123),
        ("0", 0),
        ("-1", -1_000),
        ("-1.25", -1_250),
        ("-62135596800", -62_135_596_800_000),
        ("253402300799", 253_402_300_799_000),
    ] as [(String, Int64)])
    func parameter(text: String, milliseconds: Int64) {
        #expect(Timestamp(parameter: text) == Timestamp(milliseconds: milliseconds))
    }

    @Test(arguments: [
        "", "-", ".", "abc", "1e9", "1E9", "+5", " 1736424000", "1736424000 ", "0x10", "nan", "inf",
        "--1", "1.2.3", "1-2", "253402300800", "-62135596801", "99999999999999999999", "2025-01-09",
        "2025-02-30T00:00:00Z", "１２",
    ])
    func invalidParameter(text: String) {
        #expect(Timestamp(parameter: text) == nil)
    }

    // MARK: arithmetic and order

    @Test func orderAndArithmetic() {
        let a = Timestamp(milliseconds: -5)
        let b = Timestamp(milliseconds: 3)
        #expect(a < b)
        #expect(!(b < a))
        #expect(b > a)
        #expect([b, a, Timestamp(milliseconds: 0)].sorted().map(\.milliseconds) == [-5, 0, 3])
        #expect(b.adding(milliseconds: -8) == a)
        #expect(a.adding(milliseconds: 600_000).milliseconds == 599_995)
        #expect(Set([a, b, Timestamp(milliseconds: 3)]).count == 2)
    }

    @Test func nowIsAPlausibleWallClock() {
        let now = Timestamp.now()
        // 2024-01-01T00:00:00Z and 2100-01-01T00:00:00Z.
        #expect(now.milliseconds > 1_704_067_200_000)
        #expect(now.milliseconds < 4_102_444_800_000)
    }
}
