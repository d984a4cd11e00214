import SenseiModels

/// What `sensei list` and `sensei show` print: plain text for people over SSH
/// and JSON for scripts, from the same cache data the dashboard draws.
public enum TextReport {
    public struct Context: Sendable {
        public var now: Timestamp
        public var utcOffsetSeconds: Int
        public var charset: Charset

        public init(now: Timestamp, utcOffsetSeconds: Int, charset: Charset) {
            self.now = now
            self.utcOffsetSeconds = utcOffsetSeconds
            self.charset = charset
        }
    }

    public static let sparklineWidth = 24

    /// One row a sensor, in the user's order: code, name, latest value, age,
    /// the last 24 hours, and `stale` for sensors that went quiet.
    public static func list(_ sensors: [SensorSummary], _ context: Context) -> String {
        guard !sensors.isEmpty else { return "no sensors yet\n" }
        let start = context.now.milliseconds - 86_400_000
        let rows = [["CODE", "NAME", "VALUE", "UPDATED", "LAST 24 H", ""]] + sensors.map { summary in
            let sensor = summary.sensor
            let value = sensor.latest.map { Format.value($0.value, type: sensor.valueType, units: sensor.units) } ?? "-"
            let age = sensor.latest.map { Format.age(of: $0.timestamp, now: context.now) } ?? "never"
            let sparkline = Sparkline(series: summary.recent, start: start, end: context.now.milliseconds,
                                      charset: context.charset, stepped: sensor.valueType == .bool)
                .text(width: sparklineWidth)
            return [sensor.code, sensor.name, value, age, sparkline, summary.isStale(now: context.now) ? "stale" : ""]
                .map(context.charset.displayable)
        }
        return table(rows)
    }

    public static func listJSON(_ sensors: [SensorSummary], _ context: Context) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("sensors")
        writer.beginArray()
        for summary in sensors {
            writer.beginObject()
            summary.sensor.writeFields(.report, to: &writer)
            writer.key("stale")
            writer.bool(summary.isStale(now: context.now))
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.string + "\n"
    }

    /// A sensor over a range: current value, statistics, and the chart.
    public static func show(_ detail: DetailData, _ context: Context, width: Int = 80, chartHeight: Int = 14) -> String {
        let sensor = detail.sensor
        let text = { (value: Double) in Format.value(value, type: sensor.valueType, units: sensor.units) }
        let time = { (t: Timestamp) in Format.dateTime(t, utcOffsetSeconds: context.utcOffsetSeconds, seconds: false) }
        var lines = ["\(sensor.name) (\(sensor.code)), last \(detail.range.title)"]
        if let latest = sensor.latest {
            lines.append("current  \(text(latest.value))  \(Format.age(of: latest.timestamp, now: context.now))")
        } else {
            lines.append("current  no readings yet")
        }
        if let stats = detail.statistics {
            lines.append("count    \(stats.count)")
            lines.append("min      \(text(stats.min.value))  at \(time(stats.min.timestamp))")
            lines.append("max      \(text(stats.max.value))  at \(time(stats.max.timestamp))")
            // A mean has decimals even for whole-number sensors; on/off shows the share of "on".
            lines.append("mean     " + (sensor.valueType == .bool ? Format.number(stats.mean, significantDigits: 3)
                : Format.value(stats.mean, type: .float, units: sensor.units)))
            lines.append("oldest   \(time(stats.oldest))")
        } else {
            lines.append("no readings in this range")
        }
        let chart = LineChart(detail: detail, utcOffsetSeconds: context.utcOffsetSeconds, charset: context.charset)
        var grid = CellGrid(width: width, height: chartHeight)
        _ = chart.render(into: &grid, area: grid.bounds)
        return (lines.map(context.charset.displayable) + [""] + grid.lines).joined(separator: "\n") + "\n"
    }

    public static func showJSON(_ detail: DetailData) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("sensor")
        writer.beginObject()
        detail.sensor.writeFields(.report, to: &writer)
        writer.endObject()
        writer.key("range")
        writer.string(detail.range.rawValue)
        writer.key("start")
        writer.timestamp(detail.start)
        writer.key("end")
        writer.timestamp(detail.end)
        writer.key("statistics")
        if let stats = detail.statistics {
            writer.beginObject()
            writer.key("count")
            writer.int(stats.count)
            writer.key("min")
            stats.min.write(to: &writer)
            writer.key("max")
            stats.max.write(to: &writer)
            writer.key("mean")
            writer.number(stats.mean)
            writer.key("oldest")
            writer.timestamp(stats.oldest)
            writer.key("newest")
            writer.timestamp(stats.newest)
            writer.endObject()
        } else {
            writer.null()
        }
        writer.key("readings")
        writer.beginArray()
        for reading in detail.readings { reading.write(to: &writer) }
        writer.endArray()
        writer.endObject()
        return writer.string + "\n"
    }

    /// Columns padded to their widest cell, two spaces apart, no trailing spaces.
    static func table(_ rows: [[String]]) -> String {
        let columns = rows.map(\.count).max() ?? 0
        let widths = (0..<columns).map { column in rows.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0 }
        return rows.map { row in
            var line = ""
            for (column, cell) in row.enumerated() {
                line += column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0) + "  "
            }
            while line.last == " " { line.removeLast() }
            return line
        }.joined(separator: "\n") + "\n"
    }
}
