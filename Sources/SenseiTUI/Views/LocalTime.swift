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
        let (year, month, day) = CivilCalendar.civil(fromDays: days)
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

extension CivilCalendar {
    /// UTC milliseconds of local midnight starting `year-month-day`.
    static func midnight(year: Int, month: Int, day: Int, utcOffsetSeconds: Int) -> Int64 {
        days(year: year, month: month, day: day) * 86_400_000 - Int64(utcOffsetSeconds) * 1000
    }
}
