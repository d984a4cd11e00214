import Testing
import SenseiModels
@testable import SenseiTUI

@Suite struct FormatTests {
    @Test func valuesByType() {
        #expect(Format.value(23.5, type: .float, units: "°C") == "23.5 °C")
        #expect(Format.value(42, type: .int, units: "%") == "42 %")
        #expect(Format.value(41.6, type: .int, units: "") == "42")
        #expect(Format.value(1, type: .bool, units: "state") == "on")
        #expect(Format.value(0, type: .bool, units: "") == "off")
        #expect(Format.value(1013.25, type: .float, units: "hPa") == "1013.3 hPa")
        #expect(Format.value(-0.5, type: .float, units: "") == "-0.5")
    }

    @Test func numbersToFiveSignificantDigits() {
        #expect(Format.number(2) == "2")
        #expect(Format.number(23.456_789) == "23.457")
        #expect(Format.number(0.000_123) == "0.000123")
        #expect(Format.number(0.000_012_34) == "1.234e-5")
        #expect(Format.number(123_456_789) == "123456789")
        #expect(Format.number(1e20) == "1e20")
        #expect(Format.number(9.999_999) == "10")
        #expect(Format.number(0) == "0")
        #expect(Format.number(.nan) == "NaN")
    }

    @Test func fixedDecimalsNeverNegativeZero() {
        #expect(Format.fixed(-0.0001, decimals: 2) == "0.00")
        #expect(Format.fixed(2.5, decimals: 0) == "3")
        #expect(Format.fixed(-2.5, decimals: 0) == "-3")
        #expect(Format.fixed(3.14159, decimals: 3) == "3.142")
        #expect(Format.fixed(0.05, decimals: 2) == "0.05")
    }

    @Test func ages() {
        #expect(Format.age(milliseconds: 0) == "just now")
        #expect(Format.age(milliseconds: 4999) == "just now")
        #expect(Format.age(milliseconds: -60_000) == "just now")
        #expect(Format.age(milliseconds: 45_000) == "45s ago")
        #expect(Format.age(milliseconds: 3 * 60_000 + 59_000) == "3m ago")
        #expect(Format.age(milliseconds: 5 * 3_600_000) == "5h ago")
        #expect(Format.age(milliseconds: 2 * 86_400_000 + 1) == "2d ago")
        #expect(Format.age(milliseconds: 400 * 86_400_000) == "1y ago")
        #expect(Format.age(of: Fixture.now.adding(milliseconds: -90_000), now: Fixture.now) == "1m ago")
    }

    @Test func durations() {
        #expect(Format.duration(milliseconds: 850) == "850ms")
        #expect(Format.duration(milliseconds: 45_000) == "45s")
        #expect(Format.duration(milliseconds: 200_000) == "3m 20s")
        #expect(Format.duration(milliseconds: 300_000) == "5m")
        #expect(Format.duration(milliseconds: 5_400_000) == "1h 30m")
        #expect(Format.duration(milliseconds: 3_600_000) == "1h")
        #expect(Format.duration(milliseconds: 2 * 86_400_000 + 5 * 3_600_000) == "2d 5h")
    }

    @Test func timesInTheGivenOffset() {
        let now = Fixture.now
        #expect(Format.dateTime(now, utcOffsetSeconds: 0) == "2025-01-09 12:00:00")
        #expect(Format.dateTime(now, utcOffsetSeconds: 3600) == "2025-01-09 13:00:00")
        #expect(Format.dateTime(now, utcOffsetSeconds: -5 * 3600, seconds: false) == "2025-01-09 07:00")
        #expect(Format.dateTime(now, utcOffsetSeconds: 13 * 3600, seconds: false) == "2025-01-10 01:00")
        #expect(Format.monthDayTime(now.adding(milliseconds: 5_500), utcOffsetSeconds: 0) == "Jan 09 12:00:05")
        #expect(Format.time(now, utcOffsetSeconds: 5 * 3600 + 1800) == "17:30:00")
        #expect(Format.date(Fixture.time("1969-12-31T23:00:00Z"), utcOffsetSeconds: 0) == "1969-12-31")
    }

    @Test func localTimeFieldsAndWeekdays() {
        let thursday = LocalTime(Fixture.now, utcOffsetSeconds: 0)
        #expect(thursday.weekdayName == "Thu" && thursday.monthName == "Jan" && thursday.day == 9)
        let wednesday = LocalTime(Fixture.time("1969-12-31T23:59:59.250Z"), utcOffsetSeconds: 0)
        #expect(wednesday.weekdayName == "Wed")
        #expect((wednesday.year, wednesday.hour, wednesday.second, wednesday.millisecond) == (1969, 23, 59, 250))
        let leap = LocalTime(Fixture.time("2024-02-29T23:30:00Z"), utcOffsetSeconds: 3600)
        #expect((leap.month, leap.day, leap.hour, leap.weekdayName) == (3, 1, 0, "Fri"))
    }
}
