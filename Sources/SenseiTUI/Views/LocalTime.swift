import SenseiModels

/// Calendar fields of an instant in a fixed UTC offset.
///
/// The app passes the local zone's current offset in seconds; tests pass 0 or a
/// fixed offset, so nothing here depends on the machine's zone. A DST change
/// inside a chart's range shifts labels by the hour it moved, which is
/// acceptable for a dashboard and keeps this free of tz databases.
public struct LocalTime: Hashable, Sendable {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int
    public var millisecond: Int
    /// 0 = Monday … 6 = Sunday.
    public var weekday: Int

    public init(_ milliseconds: Int64, utcOffsetSeconds: Int) {
        let local = milliseconds + Int64(utcOffsetSeconds) * 1000
        let (days, msOfDay) = local.floorDivided(by: 86_400_000)
        let (year, month, day) = Calendar.civil(fromDays: days)
        let seconds = Int(msOfDay / 1000)
        self.year = year
        self.month = month
        self.day = day
        hour = seconds / 3600
        minute = seconds / 60 % 60
        second = seconds % 60
        millisecond = Int(msOfDay % 1000)
        // 1970-01-01 was a Thursday (3 when Monday is 0).
        weekday = Int((days + 3).floorDivided(by: 7).1)
    }

    public init(_ timestamp: Timestamp, utcOffsetSeconds: Int) {
        self.init(timestamp.milliseconds, utcOffsetSeconds: utcOffsetSeconds)
    }

    public static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                    "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    public static let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    public var monthName: String { Self.monthNames[month - 1] }
    public var weekdayName: String { Self.weekdayNames[weekday] }
}

/// Proleptic Gregorian day arithmetic (Howard Hinnant's algorithms), in days
/// since 1970-01-01.
enum Calendar {
    static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return Int64(era * 146_097 + dayOfEra - 719_468)
    }

    static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = Int(days) + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// UTC milliseconds of local midnight starting `year-month-day`.
    static func midnight(year: Int, month: Int, day: Int, utcOffsetSeconds: Int) -> Int64 {
        days(year: year, month: month, day: day) * 86_400_000 - Int64(utcOffsetSeconds) * 1000
    }
}

extension Int64 {
    /// Floor division with a non-negative remainder, for instants before 1970.
    func floorDivided(by divisor: Int64) -> (Int64, Int64) {
        let quotient = self / divisor
        let remainder = self % divisor
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }
}
