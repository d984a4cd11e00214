import SenseiModels

/// The detail screen's text parts: cursor readout, statistics, sensor
/// information and the readings table.
extension DetailView {
    /// "Jan 09 14:05:30  23.5 °C  (22.1–24.0 in 12 readings)", or a hint while
    /// the cursor is hidden.
    static func renderReadout(chart: LineChart, layout: LineChart.Layout, data: DetailData, model: AppModel,
                              into grid: inout CellGrid, area: Rect) {
        guard !area.isEmpty else { return }
        let charset = model.charset, glyphs = charset.glyphs
        guard let column = model.detail?.cursor else {
            let hint = "\(glyphs.arrowLeft)/\(glyphs.arrowRight) cursor  1-6 range  PgUp/PgDn readings"
            grid.write(hint, in: area, style: CellStyle(dim: true), ellipsis: glyphs.ellipsis)
            return
        }
        guard let cursor = chart.reading(atColumn: column, in: layout) else {
            grid.write("no readings", in: area, style: CellStyle(dim: true), ellipsis: glyphs.ellipsis)
            return
        }
        let sensor = data.sensor
        let time = cursorTime(cursor.reading.timestamp, range: data.range, aggregate: cursor.isAggregate, model: model)
        var text = time + "  " + (cursor.isAggregate ? "mean " : "")
            + Format.value(cursor.reading.value, type: sensor.valueType, units: sensor.units)
        if let extent = cursor.columnExtent, extent.lowerBound < extent.upperBound, sensor.valueType != .bool {
            text += "  (" + Format.value(extent.lowerBound, type: sensor.valueType) + glyphs.rangeDash
                + Format.value(extent.upperBound, type: sensor.valueType) + " in \(cursor.columnCount) readings)"
        }
        grid.write(charset.displayable(text), in: area, style: CellStyle(bold: true), ellipsis: glyphs.ellipsis)
    }

    /// Seconds matter in the last hour; the date from a day up; the year from a year up.
    static func cursorTime(_ time: Timestamp, range: TimeRange, aggregate: Bool, model: AppModel) -> String {
        let offset = model.utcOffsetSeconds
        switch range {
        case .hour: return Format.time(time, utcOffsetSeconds: offset, seconds: !aggregate)
        case .day, .week, .month: return Format.monthDayTime(time, utcOffsetSeconds: offset, seconds: !aggregate)
        case .year, .all: return Format.dateTime(time, utcOffsetSeconds: offset, seconds: !aggregate)
        }
    }

    /// Count, min and max with their times, mean, oldest.
    static func renderStatistics(_ data: DetailData, model: AppModel, into grid: inout CellGrid, area: Rect) {
        guard !area.isEmpty else { return }
        let sensor = data.sensor
        let offset = model.utcOffsetSeconds
        guard let stats = data.statistics else {
            labelled([("Count", "0")], model: model, into: &grid, area: area)
            return
        }
        func value(_ number: Double) -> String { Format.value(number, type: sensor.valueType, units: sensor.units) }
        func when(_ time: Timestamp) -> String { Format.dateTime(time, utcOffsetSeconds: offset, seconds: false) }
        labelled([
            ("Count", String(stats.count)),
            ("Min", value(stats.min.value) + "  " + when(stats.min.timestamp)),
            ("Max", value(stats.max.value) + "  " + when(stats.max.timestamp)),
            ("Mean", sensor.valueType == .bool ? Format.number(stats.mean, significantDigits: 3)
                : Format.value(stats.mean, type: .float, units: sensor.units)),
            ("Oldest", when(stats.oldest)),
        ], model: model, into: &grid, area: area)
    }

    /// Code, type and units, created, and (on tall screens) the usual
    /// interval with the data rate over the window shown, and the labels
    /// (`key=value`, in key order).
    static func renderInfo(_ data: DetailData, model: AppModel, into grid: inout CellGrid, area: Rect) {
        guard !area.isEmpty else { return }
        let sensor = data.sensor
        var lines = [
            ("Code", sensor.code),
            ("Type", sensor.valueType.rawValue + (sensor.units.isEmpty ? "" : ", units " + sensor.units)),
            ("Created", Format.dateTime(sensor.createdAt, utcOffsetSeconds: model.utcOffsetSeconds, seconds: false)),
        ]
        // The device's habit, and its rate over the window shown.
        let rate = self.rate(data).map { model.charset.glyphs.separator + $0 + " shown" } ?? ""
        if let interval = data.usualInterval {
            lines.append(("Interval", "every " + Format.duration(milliseconds: interval) + rate))
        }
        if !sensor.labels.isEmpty {
            let pairs = sensor.labels.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
            lines.append(("Labels", pairs.map { "\($0.key)=\($0.value)" }.joined(separator: " ")))
        }
        labelled(lines, model: model, into: &grid, area: area)
    }

    /// Readings a minute (from one a minute up) or an hour over the window
    /// shown: `2.0/min`, `12/h`, `0.25/h`; nil without readings.
    static func rate(_ data: DetailData) -> String? {
        guard let count = data.statistics?.count, count > 0 else { return nil }
        let minutes = Double(max(1, data.end.milliseconds - data.start.milliseconds)) / 60_000
        let perMinute = Double(count) / minutes
        if perMinute >= 1 { return Format.number(perMinute, significantDigits: 2, maxDecimals: 1) + "/min" }
        return Format.number(perMinute * 60, significantDigits: 2, maxDecimals: 2) + "/h"
    }

    /// Label and value lines, labels dim in a column of their own.
    private static func labelled(_ lines: [(String, String)], model: AppModel, into grid: inout CellGrid, area: Rect) {
        let labelWidth = 9
        for (index, (label, value)) in lines.prefix(area.height).enumerated() {
            let row = area.row(index)
            let (labelRect, valueRect) = row.splitLeft(labelWidth)
            grid.write(label, in: labelRect, style: CellStyle(dim: true))
            grid.write(model.charset.displayable(value), in: valueRect, ellipsis: model.charset.glyphs.ellipsis)
        }
    }

    /// Readings newest first from `tableOffset`, with a header that says
    /// which rows are shown out of how many.
    static func renderTable(_ data: DetailData, state: DetailState, model: AppModel, into grid: inout CellGrid,
                            area: Rect) {
        guard area.height >= 2 else { return }
        let charset = model.charset, glyphs = charset.glyphs
        let header = area.row(0)
        let rows = area.height - 1
        let timeWidth = 19
        grid.write("Time", in: header, style: CellStyle(bold: true, dim: true))
        grid.write("Value", in: header.splitLeft(timeWidth + 2).rest, style: CellStyle(bold: true, dim: true))
        let readings = data.readings
        guard !readings.isEmpty else {
            grid.write("no readings in this range", in: area.row(1), style: CellStyle(dim: true),
                       ellipsis: glyphs.ellipsis)
            return
        }
        let first = min(state.tableOffset, max(0, readings.count - 1))
        let last = min(readings.count, first + rows)
        let position = "\(first + 1)\(glyphs.rangeDash)\(last) of \(max(data.totalReadings, readings.count))"
        if header.width >= timeWidth + 2 + 5 + 2 + position.count {
            grid.write(position, in: header, alignment: .right, style: CellStyle(dim: true))
        }
        for (line, reading) in readings[first..<last].enumerated() {
            let row = area.row(1 + line)
            let (timeRect, valueRect) = row.splitLeft(timeWidth + 2)
            grid.write(Format.dateTime(reading.timestamp, utcOffsetSeconds: model.utcOffsetSeconds), in: timeRect,
                       style: CellStyle(dim: true))
            grid.write(charset.displayable(Format.value(reading.value, type: data.sensor.valueType,
                                                        units: data.sensor.units)),
                       in: valueRect, ellipsis: glyphs.ellipsis)
        }
    }
}
