import SenseiModels

/// One x-axis label: the tick's cell column and where its text starts.
public struct TimeLabel: Hashable, Sendable {
    /// The tick's cell column within the plot.
    public var tick: Int
    /// The column the text starts at (centred on the tick, kept inside the plot).
    public var x: Int
    public var text: String
    /// The instant of the tick, ms since the epoch.
    public var time: Int64
}

/// X-axis labels suited to the range: ticks on calendar boundaries in the
/// given UTC offset (whole minutes, hours, local midnights, Mondays, month and
/// year starts), as many as fit without touching.
///
/// hour → `14:05`, day → `14:00`, week → `Mon 12`, month → `Jan 09`,
/// year → `Jan` (January shows the year, `2025`), all → `2025-01`, or `2025`
/// when it spans many years, or a shorter range's style when the history is short.
public enum TimeAxis {
    enum Unit: Hashable { case minute, hour, day, week, month, year }

    enum Style: Hashable {
        case clock, weekday, monthDay, month, yearMonth, year

        var width: Int {
            switch self {
            case .clock: 5
            case .weekday, .monthDay: 6
            case .month, .year: 4
            case .yearMonth: 7
            }
        }
    }

    struct Step: Hashable {
        var unit: Unit
        var count: Int

        /// The shortest this step can be, for judging whether labels fit.
        var minimumMilliseconds: Int64 {
            let base: Int64 = switch unit {
            case .minute: 60_000
            case .hour: 3_600_000
            case .day: 86_400_000
            case .week: 7 * 86_400_000
            case .month: 28 * 86_400_000
            case .year: 365 * 86_400_000
            }
            return base * Int64(count)
        }
    }

    /// Labels for a plot `width` cells wide showing [start, end].
    public static func labels(start: Int64, end: Int64, range: TimeRange, width: Int,
                              utcOffsetSeconds: Int) -> [TimeLabel] {
        guard width > 0, end > start else { return [] }
        let (style, candidates) = plan(range: range, span: end - start)
        let span = Double(end - start)
        // Labels need their width plus two spaces between ticks.
        let step = candidates.first { Double($0.minimumMilliseconds) / span * Double(width) >= Double(style.width + 2) }
            ?? candidates.last!
        var labels: [(label: TimeLabel, shifted: Bool)] = []
        for time in ticks(from: start, to: end, step: step, utcOffsetSeconds: utcOffsetSeconds) {
            let text = self.text(time, style: style, utcOffsetSeconds: utcOffsetSeconds)
            let length = text.count
            guard length <= width else { continue }
            let dot = ColumnSeries.columnIndex(offset: time - start, span: end - start, columns: Int64(width) * 2)
            let tick = min(Int(dot / 2), width - 1)
            let centred = tick - length / 2
            let x = min(max(0, centred), width - length)
            let label = TimeLabel(tick: tick, x: x, text: text, time: time)
            // Labels at the edges are pushed inside the plot; when that makes
            // one touch its neighbour, the pushed one gives way, so the
            // regularly spaced labels inside stay.
            if let last = labels.last, x <= last.label.x + last.label.text.count {
                guard last.shifted && x == centred else { continue }
                labels.removeLast()
                if let before = labels.last, x <= before.label.x + before.label.text.count { continue }
            }
            labels.append((label, x != centred))
        }
        return labels.map(\.label)
    }

    static func plan(range: TimeRange, span: Int64) -> (Style, [Step]) {
        let clockSteps = [1, 2, 5, 10, 15, 30].map { Step(unit: .minute, count: $0) } + [Step(unit: .hour, count: 1)]
        let hourSteps = [1, 2, 3, 4, 6, 12].map { Step(unit: .hour, count: $0) } + [Step(unit: .day, count: 1)]
        let weekSteps = [Step(unit: .day, count: 1), Step(unit: .day, count: 2), Step(unit: .week, count: 1)]
        let monthSteps = [Step(unit: .day, count: 1), Step(unit: .day, count: 2), Step(unit: .week, count: 1),
                          Step(unit: .week, count: 2)]
        let yearSteps = [1, 2, 3, 6].map { Step(unit: .month, count: $0) } + [Step(unit: .year, count: 1)]
        switch range {
        case .hour: return (.clock, clockSteps)
        case .day: return (.clock, hourSteps)
        case .week: return (.weekday, weekSteps)
        case .month: return (.monthDay, monthSteps)
        case .year: return (.month, yearSteps)
        case .all:
            let day: Int64 = 86_400_000
            switch span {
            case ...(3 * 3_600_000): return (.clock, clockSteps)
            case ...(3 * day): return (.clock, hourSteps)
            case ...(21 * day): return (.weekday, weekSteps)
            case ...(120 * day): return (.monthDay, monthSteps)
            case ...(5 * 365 * day): return (.yearMonth, yearSteps)
            default: return (.year, [1, 2, 5, 10, 20, 50, 100].map { Step(unit: .year, count: $0) })
            }
        }
    }

    /// The aligned instants of `step` within [start, end], at most 1000.
    static func ticks(from start: Int64, to end: Int64, step: Step, utcOffsetSeconds: Int) -> [Int64] {
        let offset = Int64(utcOffsetSeconds) * 1000
        var result: [Int64] = []
        func add(_ time: Int64) -> Bool {
            if time >= start && time <= end { result.append(time) }
            return time <= end && result.count < 1000
        }
        switch step.unit {
        case .minute, .hour, .day, .week:
            let unit: Int64 = switch step.unit {
            case .minute: 60_000
            case .hour: 3_600_000
            default: 86_400_000
            }
            let length = unit * Int64(step.count) * (step.unit == .week ? 7 : 1)
            // Weeks start on Monday: local day 4 since the epoch was one.
            let phase: Int64 = step.unit == .week ? 4 * 86_400_000 : 0
            let (index, remainder) = (start + offset - phase).floorDivided(by: length)
            var time = (remainder == 0 ? index : index + 1) * length + phase - offset
            while add(time) { time += length }
        case .month, .year:
            let first = LocalTime(start, utcOffsetSeconds: utcOffsetSeconds)
            let months = step.unit == .year ? 12 * step.count : step.count
            var monthIndex = first.year * 12 + first.month - 1
            let remainder = monthIndex % months
            if remainder != 0 { monthIndex += months - remainder }
            while true {
                let time = CivilCalendar.midnight(year: monthIndex / 12, month: monthIndex % 12 + 1, day: 1,
                                             utcOffsetSeconds: utcOffsetSeconds)
                if !add(time) { break }
                monthIndex += months
            }
        }
        return result
    }

    static func text(_ time: Int64, style: Style, utcOffsetSeconds: Int) -> String {
        let local = LocalTime(time, utcOffsetSeconds: utcOffsetSeconds)
        switch style {
        case .clock: return Format.clock(local, seconds: false)
        case .weekday: return local.weekdayName + " " + Format.padded(local.day)
        case .monthDay: return local.monthName + " " + Format.padded(local.day)
        case .month: return local.month == 1 ? String(local.year) : local.monthName
        case .yearMonth: return Format.padded(local.year, width: 4) + "-" + Format.padded(local.month)
        case .year: return String(local.year)
        }
    }
}
