import SenseiClient
import SenseiModels

/// The screens' data shaped from what the cache reads: the cache returns
/// sensors and series, the dashboard makes rows and detail screens of them.
extension SensorCache {
    /// The detail screen for one sensor and range as of `now`; nil when the
    /// sensor is not cached. `window` (inclusive ms), when given, is a zoom.
    func detail(sensorId: Int64, range: TimeRange, now: Timestamp, window zoom: ClosedRange<Int64>? = nil,
                maxBuckets: Int = chartBuckets, rawLimit: Int = rawChartLimit,
                tablePage: Int = firstTablePage) throws -> DetailData? {
        try window(sensorId: sensorId, range: range, now: now, zoom: zoom, maxBuckets: maxBuckets,
                   rawLimit: rawLimit, tablePage: tablePage)
            .map { DetailData($0, range: range, zoomed: zoom != nil) }
    }

    /// Every cached sensor's row with its sparkline and usual interval (`sensei list`).
    func sensorSummaries(now: Timestamp) throws -> [SensorSummary] {
        try sensorsWithRecent(now: now).map {
            SensorSummary(sensor: $0.sensor, recent: $0.recent.series, usualInterval: $0.recent.usualInterval)
        }
    }

    /// The dashboard's list, without sparklines (read for the rows on screen).
    func sensorList() throws -> [SensorSummary] {
        try sensors().map { SensorSummary(sensor: $0) }
    }

    /// These sensors' rows as cached now; those gone are absent.
    func sensorList(ids: Set<Int64>) throws -> [SensorSummary] {
        try sensors(ids: ids).map { SensorSummary(sensor: $0) }
    }
}
