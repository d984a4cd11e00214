import SenseiModels

extension TextReport {
    /// `sensei show CODE --usage`: the detail's usage bars as text, under a
    /// line naming the intervals and zone, and the range's total.
    public static func usage(_ report: UsageReport, sensor: Sensor, range: TimeRange, zone: TimeZoneRules,
                             _ context: Context, width: Int = 80, chartHeight: Int = 12) -> String {
        let lines = [
            "\(sensor.name) (\(sensor.code)), usage per \(report.interval.rawValue), last \(range.title), \(report.timeZone)",
            "total " + DetailView.usageValue(report.total, units: report.units),
        ]
        var grid = CellGrid(width: width, height: chartHeight)
        UsageBars(report: report, zone: zone, charset: context.charset).render(into: &grid, area: grid.bounds)
        return (lines.map(context.charset.displayable) + [""] + grid.lines).joined(separator: "\n") + "\n"
    }

    /// `sensei show CODE --usage --json`: the server's report as it sent it.
    public static func usageJSON(_ report: UsageReport) -> String {
        var writer = JSONWriter()
        report.write(to: &writer)
        return writer.string + "\n"
    }
}
