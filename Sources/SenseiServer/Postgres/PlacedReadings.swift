/// Readings placed at their milliseconds, one per millisecond, the later
/// value winning; `order` keeps each input's millisecond, in input order.
struct PlacedReadings {
    var timestamps: [Int64] = []
    var values: [Double] = []
    var order: [Int64] = []
    private var index: [Int64: Int] = [:]

    mutating func place(_ ts: Int64, _ value: Double) {
        order.append(ts)
        if let at = index[ts] {
            values[at] = value
        } else {
            index[ts] = timestamps.count
            timestamps.append(ts)
            values.append(value)
        }
    }
}
