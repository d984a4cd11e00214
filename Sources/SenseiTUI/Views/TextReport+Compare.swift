import SenseiModels

extension TextReport {
    /// `sensei show A B [C D]`: one chart of every sensor over the range, and
    /// a legend line each (its number, its line's dash pattern, name, latest
    /// value, the range's min–max), through the dashboard's compare chart.
    public static func compare(_ details: [DetailData], _ context: Context, width: Int = 80,
                               chartHeight: Int = 14) -> String {
        guard let first = details.first,
              let chart = LineChart(compare: details, utcOffsetSeconds: context.utcOffsetSeconds,
                                    charset: context.charset) else { return "" }
        let charset = context.charset
        var lines = ["Compare, last \(first.range.title)"]
        for (index, data) in details.enumerated() {
            let sensor = data.sensor
            var line = "\(index + 1) " + ChartLine.sample(line: index, charset: charset) + " \(sensor.name) (\(sensor.code))"
            if let latest = sensor.latest {
                line += "  " + Format.value(latest.value, type: sensor.valueType, units: sensor.units)
            }
            if let stats = data.statistics {
                line += "  min " + Format.value(stats.min.value, type: sensor.valueType, units: sensor.units)
                    + "  max " + Format.value(stats.max.value, type: sensor.valueType, units: sensor.units)
            } else {
                line += "  no readings in this range"
            }
            lines.append(charset.displayable(line))
        }
        var grid = CellGrid(width: width, height: chartHeight)
        _ = chart.render(into: &grid, area: grid.bounds)
        return (lines + [""] + grid.lines).joined(separator: "\n") + "\n"
    }
}
