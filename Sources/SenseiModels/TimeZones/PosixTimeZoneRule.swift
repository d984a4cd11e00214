/// A POSIX `TZ` rule such as `CET-1CEST,M3.5.0,M10.5.0/3`: what a zone file's
/// footer says holds after its last listed transition (RFC 8536 section 3.3,
/// with its extensions: hours up to 167 and negative transition times).
struct PosixTimeZoneRule: Sendable, Hashable {
    /// Seconds east of UTC, in standard time and in daylight-saving time.
    let standardOffset: Int32
    let daylightOffset: Int32?
    /// When daylight-saving time begins and ends, in the wall time then in force.
    let start: Transition?
    let end: Transition?

    struct Transition: Sendable, Hashable {
        enum Day: Sendable, Hashable {
            /// `Jn`: 1…365, 29 February never counted.
            case julianNoLeap(Int)
            /// `n`: 0…365, 29 February counted.
            case zeroBased(Int)
            /// `Mm.w.d`: weekday d (0 = Sunday) of week w (5 = the last) of month m.
            case monthWeekDay(month: Int, week: Int, weekday: Int)
        }

        var day: Day
        /// Seconds after the day's local midnight (default 02:00).
        var time: Int64

        /// Days since 1970-01-01 of this transition's day in `year`.
        func days(in year: Int) -> Int64 {
            let january1 = CivilCalendar.days(year: year, month: 1, day: 1)
            switch day {
            case .julianNoLeap(let n):
                return january1 + Int64(n - 1) + (CivilCalendar.isLeap(year) && n >= 60 ? 1 : 0)
            case .zeroBased(let n):
                return january1 + Int64(n)
            case .monthWeekDay(let month, let week, let weekday):
                let first = CivilCalendar.days(year: year, month: month, day: 1)
                // 1970-01-01 was a Thursday (4 when Sunday is 0).
                let firstWeekday = Int((first + 4).floorDivided(by: 7).1)
                var day = 1 + (weekday - firstWeekday + 7) % 7 + (week - 1) * 7
                while day > CivilCalendar.daysIn(month: month, year: year) { day -= 7 }
                return first + Int64(day - 1)
            }
        }
    }

    func offset(atUTCSeconds utcSeconds: Int64) -> Int32 {
        guard let daylightOffset, let start, let end else { return standardOffset }
        let year = CivilCalendar.civil(fromDays: utcSeconds.floorDivided(by: 86_400).0).year
        let begins = start.days(in: year) * 86_400 + start.time - Int64(standardOffset)
        let ends = end.days(in: year) * 86_400 + end.time - Int64(daylightOffset)
        let isDaylight = begins < ends
            ? utcSeconds >= begins && utcSeconds < ends
            : utcSeconds < ends || utcSeconds >= begins  // the southern hemisphere
        return isDaylight ? daylightOffset : standardOffset
    }
}

extension PosixTimeZoneRule {
    /// Parses a rule; nil when it is not one.
    init?(_ text: String) {
        var scanner = PosixRuleScanner(Array(text.utf8))
        guard scanner.skipName(), let standard = scanner.duration() else { return nil }
        standardOffset = Int32(-standard)
        guard !scanner.isAtEnd else {
            daylightOffset = nil
            start = nil
            end = nil
            return
        }
        guard scanner.skipName() else { return nil }
        // Daylight time is an hour ahead of standard unless it says otherwise.
        let daylight = scanner.peek == UInt8(ascii: ",") || scanner.isAtEnd
            ? Int64(standardOffset) + 3600 : scanner.duration().map { -$0 }
        guard let daylight else { return nil }
        daylightOffset = Int32(daylight)
        if scanner.isAtEnd {
            // No rule given: POSIX leaves it to the implementation; glibc uses the US rule.
            start = Transition(day: .monthWeekDay(month: 3, week: 2, weekday: 0), time: 7200)
            end = Transition(day: .monthWeekDay(month: 11, week: 1, weekday: 0), time: 7200)
            return
        }
        guard scanner.take(UInt8(ascii: ",")), let start = scanner.transition(),
              scanner.take(UInt8(ascii: ",")), let end = scanner.transition(), scanner.isAtEnd else { return nil }
        self.start = start
        self.end = end
    }
}

private struct PosixRuleScanner {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { position == bytes.count }
    var peek: UInt8? { isAtEnd ? nil : bytes[position] }

    mutating func take(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        position += 1
        return true
    }

    /// A zone abbreviation: `<+0330>` quoted, or three or more letters.
    mutating func skipName() -> Bool {
        if take(UInt8(ascii: "<")) {
            guard let close = bytes[position...].firstIndex(of: UInt8(ascii: ">")) else { return false }
            position = close + 1
            return true
        }
        let begin = position
        while let byte = peek, (byte | 0x20) >= UInt8(ascii: "a"), (byte | 0x20) <= UInt8(ascii: "z") { position += 1 }
        return position - begin >= 3
    }

    /// `[+-]hh[:mm[:ss]]` in seconds.
    mutating func duration() -> Int64? {
        var sign: Int64 = 1
        if take(UInt8(ascii: "-")) { sign = -1 } else { _ = take(UInt8(ascii: "+")) }
        guard let hours = number(), hours <= 167 else { return nil }
        var seconds = hours * 3600
        if take(UInt8(ascii: ":")) {
            guard let minutes = number(), minutes < 60 else { return nil }
            seconds += minutes * 60
            if take(UInt8(ascii: ":")) {
                guard let rest = number(), rest < 60 else { return nil }
                seconds += rest
            }
        }
        return sign * seconds
    }

    mutating func transition() -> PosixTimeZoneRule.Transition? {
        let day: PosixTimeZoneRule.Transition.Day
        if take(UInt8(ascii: "J")) {
            guard let n = number(), (1...365).contains(n) else { return nil }
            day = .julianNoLeap(Int(n))
        } else if take(UInt8(ascii: "M")) {
            guard let month = number(), (1...12).contains(month), take(UInt8(ascii: ".")),
                  let week = number(), (1...5).contains(week), take(UInt8(ascii: ".")),
                  let weekday = number(), (0...6).contains(weekday) else { return nil }
            day = .monthWeekDay(month: Int(month), week: Int(week), weekday: Int(weekday))
        } else {
            guard let n = number(), (0...365).contains(n) else { return nil }
            day = .zeroBased(Int(n))
        }
        var time: Int64 = 7200
        if take(UInt8(ascii: "/")) {
            guard let given = duration() else { return nil }
            time = given
        }
        return PosixTimeZoneRule.Transition(day: day, time: time)
    }

    private mutating func number() -> Int64? {
        let begin = position
        var value: Int64 = 0
        while let byte = peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), position - begin < 4 {
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            position += 1
        }
        return position > begin ? value : nil
    }
}
