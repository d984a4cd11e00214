import SenseiModels

/// The page `aggregatesOfEverySensor` fills, in either backend: each
/// sensor's rows go to the visitor while the page has room, and the first
/// row past it is where the next page starts.
struct AggregatePage {
    /// Rows the page still takes.
    private(set) var remaining: Int
    /// Where the next page starts; nil until the page is full.
    private(set) var next: BulkCursor?

    init(limit: Int) {
        remaining = limit
    }

    /// Hands a sensor's rows (with one more than fits, if it has them) to
    /// `visit`, as many as the page takes; false, and `next` set, when the
    /// page is full.
    mutating func hand(_ rows: [SpanRow], of sensor: BulkSensor,
                       to visit: (BulkSensor, SpanAggregate) throws -> Void) rethrows -> Bool {
        for row in rows.prefix(remaining) { try visit(sensor, row.wire) }
        if rows.count > remaining {
            next = BulkCursor(sensorID: sensor.id, position: rows[remaining].start)
            return false
        }
        remaining -= rows.count
        return true
    }
}
