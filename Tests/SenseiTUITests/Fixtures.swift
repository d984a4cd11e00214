import SenseiModels
@testable import SenseiTUI
@testable import SenseiClient

/// Shared test data: a fixed "now" and a few sensors with known readings.
enum Fixture {
    /// 2025-01-09T12:00:00Z, a Thursday.
    static let now = Timestamp(milliseconds: 1_736_424_000_000)
    static let minute: Int64 = 60_000
    static let hour: Int64 = 3_600_000
    static let day: Int64 = 86_400_000

    static func time(_ text: String) -> Timestamp { Timestamp(rfc3339: text)! }

    static func sensor(id: Int64, code: String, name: String, units: String = "", type: ValueType = .float,
                       latest: Reading? = nil, count: Int = 0, created: Timestamp = time("2025-01-02T10:00:00Z")) -> Sensor {
        Sensor(id: id, code: code, name: name, units: units, valueType: type, createdAt: created, updatedAt: created,
               latest: latest, count: count)
    }

    /// A raw series: one reading every `every` ms from `start`, values from `value(index)`.
    static func series(from start: Int64, every: Int64, count: Int, _ value: (Int) -> Double) -> TimeSeries {
        var series = TimeSeries()
        for index in 0..<count { series.append(timestamp: start + Int64(index) * every, value: value(index)) }
        return series
    }

    /// External temperature: every 5 minutes for 24 h up to 3 minutes ago,
    /// rising smoothly from 10 to 25 (one decimal, as devices send).
    static var temperature: SensorSummary {
        let start = now.milliseconds - day + 2 * minute
        let recent = series(from: start, every: 5 * minute, count: 288) { ((10 + 15 * Double($0) / 287) * 10).rounded() / 10 }
        return SensorSummary(
            sensor: sensor(id: 1, code: "temperature_ext", name: "External Temperature", units: "°C",
                           latest: Reading(timestamp: now.adding(milliseconds: -3 * minute), value: 25), count: 1234),
            recent: recent, usualInterval: 5 * minute)
    }

    /// Humidity in whole percent, hourly; silent for the last 6 hours, so stale.
    static var humidity: SensorSummary {
        let start = now.milliseconds - day
        let recent = series(from: start, every: hour, count: 19) { Double(40 + $0 % 5) }
        return SensorSummary(
            sensor: sensor(id: 2, code: "humidity", name: "Humidity", units: "%", type: .int,
                           latest: Reading(timestamp: now.adding(milliseconds: -6 * hour), value: 42), count: 19),
            recent: recent, usualInterval: hour)
    }

    /// A door contact: on/off.
    static var door: SensorSummary {
        SensorSummary(
            sensor: sensor(id: 3, code: "door", name: "Front door", type: .bool,
                           latest: Reading(timestamp: now.adding(milliseconds: -45_000), value: 1), count: 2),
            recent: TimeSeries(timestamps: [now.milliseconds - 2 * hour, now.milliseconds - 45_000], values: [0, 1]),
            usualInterval: nil)
    }

    /// A sensor created without readings.
    static var empty: SensorSummary {
        SensorSummary(sensor: sensor(id: 4, code: "new_probe", name: "New probe"))
    }

    static var summaries: [SensorSummary] { [temperature, humidity, door] }

    /// A model that has loaded the sensors and synced once.
    static func model(width: Int = 80, height: Int = 24, sensors: [SensorSummary] = summaries,
                      charset: Charset = .unicode) -> AppModel {
        var model = AppModel(width: width, height: height, now: now, charset: charset, serverName: "sensei.lan:3000")
        _ = model.start()
        _ = model.update(.syncFinished(at: now.adding(milliseconds: -12_000), newReadings: 3))
        _ = model.update(.sensorsLoaded(sensors))
        model.now = now
        return model
    }
}

extension CellGrid {
    /// The grid's text with a `|` at the end of every row, so trailing cells show.
    var framed: String { lines.map { $0 + "|" }.joined(separator: "\n") }
}

extension Fixture {
    /// The detail of `summary` over `range`, from its recent series, as the cache would fill it.
    static func detail(_ summary: SensorSummary, range: TimeRange, series: TimeSeries? = nil) -> DetailData {
        let series = series ?? summary.recent
        let window = SensorWindow.bounds(for: range, now: now,
                                       oldest: series.timestamps.first.map(Timestamp.init(milliseconds:)))
        let low = series.lowerBound(window.start.milliseconds), high = series.upperBound(window.end.milliseconds)
        let readings = (low..<high).reversed().map { series.reading(at: $0) }
        return DetailData(sensor: summary.sensor, range: range, start: window.start, end: window.end, series: series,
                          statistics: Statistics(series: series, start: window.start, end: window.end),
                          readings: readings, usualInterval: summary.usualInterval)
    }

    /// A model showing the detail of the first sensor, loaded.
    /// The status bar of `model` as text, `width` cells wide (the model's by default).
    static func statusBar(_ model: AppModel, width: Int? = nil) -> String {
        var grid = CellGrid(width: width ?? model.width, height: 1)
        StatusBar.render(model, into: &grid, area: grid.bounds)
        return grid.lines[0]
    }

    static func detailModel(width: Int = 80, height: Int = 24, range: TimeRange = .day,
                            summary: SensorSummary = temperature, charset: Charset = .unicode) -> AppModel {
        var model = self.model(width: width, height: height, sensors: [summary] + summaries.filter { $0.id != summary.id },
                               charset: charset)
        model.range = range
        _ = model.update(.keyPressed(.enter))
        _ = model.update(.detailLoaded(detail(summary, range: range)))
        return model
    }
}
