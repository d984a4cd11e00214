import Foundation
import SenseiModels

/// A point of one field: nanoseconds and value.
struct InfluxPoint {
    var time: Int64
    var value: Double
}

/// What a window's aggregate gives: the value, and for selectors the time
/// of the point chosen (shown when the query has no GROUP BY time).
struct InfluxReduced {
    var value: InfluxValue
    var time: Int64?
}

/// InfluxDB 1.8's aggregates and selectors over one window's points, in time
/// order (`query/call_iterator.go`), with its tie rules and output types:
/// count is an integer, mean/median/stddev floats, the rest keep the field's type.
enum InfluxReducer {
    static let aggregates: Set<String> = ["count", "mean", "median", "mode", "sum", "min", "max", "first", "last",
                                          "spread", "stddev", "percentile", "distinct", "integral"]
    static let selectors: Set<String> = ["min", "max", "first", "last", "percentile"]
    /// Aggregates the rollups can answer: each is a function of count, sum, min and max.
    static let fromMoments: Set<String> = ["count", "mean", "sum", "min", "max"]

    static func typed(_ value: Double, _ type: ValueType) -> InfluxValue {
        switch type {
        case .float: .float(value)
        // A sum past what an Int64 holds stays a float rather than trap.
        case .int: abs(value) < 9.2e18 ? .integer(Int64(value)) : .float(value)
        case .bool: .bool(value != 0)
        }
    }

    /// nil: the window gives no value (null, or a fill).
    static func reduce(_ name: String, _ points: ArraySlice<InfluxPoint>, type: ValueType,
                       argument: Double? = nil) -> [InfluxReduced] {
        guard !points.isEmpty else { return [] }
        switch name {
        case "count": return [InfluxReduced(value: .integer(Int64(points.count)))]
        case "sum": return [InfluxReduced(value: typed(points.reduce(0) { $0 + $1.value }, type))]
        case "mean":
            var sum = 0.0
            for point in points { sum += point.value }
            return [InfluxReduced(value: .float(sum / Double(points.count)))]
        case "min":
            var best = points[points.startIndex]
            for point in points where point.value < best.value { best = point }
            return [InfluxReduced(value: typed(best.value, type), time: best.time)]
        case "max":
            var best = points[points.startIndex]
            for point in points where point.value > best.value { best = point }
            return [InfluxReduced(value: typed(best.value, type), time: best.time)]
        case "first":
            var best = points[points.startIndex]
            for point in points where point.time < best.time || (point.time == best.time && point.value > best.value) { best = point }
            return [InfluxReduced(value: typed(best.value, type), time: best.time)]
        case "last":
            var best = points[points.startIndex]
            for point in points where point.time > best.time || (point.time == best.time && point.value > best.value) { best = point }
            return [InfluxReduced(value: typed(best.value, type), time: best.time)]
        case "spread":
            let values = points.map(\.value)
            return [InfluxReduced(value: typed(values.max()! - values.min()!, type))]
        case "median":
            let values = points.map(\.value).sorted()
            let middle = values.count / 2
            let value = values.count % 2 == 1 ? values[middle]
                : values[middle - 1] + (values[middle] - values[middle - 1]) / 2
            return [InfluxReduced(value: values.count == 1 && type == .int ? .float(values[0]) : .float(value))]
        case "mode": return [InfluxReduced(value: typed(type == .bool ? booleanMode(points) : mode(points), type))]
        case "stddev":
            guard points.count >= 2 else { return [InfluxReduced(value: .null)] }
            var mean = 0.0, count = 0.0
            for point in points {
                count += 1
                mean += (point.value - mean) / count
            }
            var variance = 0.0
            for point in points { variance += (point.value - mean) * (point.value - mean) }
            return [InfluxReduced(value: .float((variance / (count - 1)).squareRoot()))]
        case "percentile":
            // Go's unstable sort, as InfluxDB's: it decides whose time an equal value shows.
            let sorted = InfluxGoSort.sort(Array(points)) { $0.value < $1.value }
            let position = (Double(sorted.count) * (argument ?? 50) / 100 + 0.5).rounded(.down)
            guard position >= 1, position <= Double(sorted.count) else { return [] }
            let index = Int(position) - 1
            return [InfluxReduced(value: typed(sorted[index].value, type), time: sorted[index].time)]
        case "distinct":
            var seen = Set<Double>()
            var out: [InfluxReduced] = []
            for point in points where seen.insert(point.value).inserted { out.append(InfluxReduced(value: typed(point.value, type))) }
            return out
        default:
            return []
        }
    }

    /// InfluxDB 1.6's `FloatModeReduceSlice` (and its integer twin): the
    /// points sorted by value with Go's unstable sort, then walked in runs
    /// of one value. A run's count is weighed from its second point on, and
    /// on a tie the later run wins unless its first point (in the sorted
    /// order) is later than the point that made the leader: so the winner
    /// depends on times and on the sort's order, not on the values.
    private static func mode(_ points: ArraySlice<InfluxPoint>) -> Double {
        if points.count == 1 { return points[points.startIndex].value }
        let sorted = InfluxGoSort.sort(Array(points)) { $0.value < $1.value }
        var mostFrequency = 0, currentFrequency = 0
        var currentMode = sorted[0].value, mostMode = sorted[0].value
        var mostTime = sorted[0].time, currentTime = sorted[0].time
        for point in sorted {
            if point.value != currentMode {
                currentFrequency = 1
                currentMode = point.value
                currentTime = point.time
                continue
            }
            currentFrequency += 1
            if mostFrequency > currentFrequency || (mostFrequency == currentFrequency && currentTime > mostTime) { continue }
            mostFrequency = currentFrequency
            mostMode = point.value
            mostTime = point.time
        }
        return mostMode
    }

    /// InfluxDB's `BooleanModeReduceSlice`: true unless false is more frequent.
    private static func booleanMode(_ points: ArraySlice<InfluxPoint>) -> Double {
        let trues = points.count(where: { $0.value != 0 })
        return trues >= points.count - trues ? 1 : 0
    }
}

/// Count, sum, min and max of some readings: what a rollup row holds, and
/// all that mean, sum, count, min and max need.
struct InfluxMoments {
    var count = 0
    var sum = 0.0
    var min = Double.infinity
    var max = -Double.infinity

    mutating func add(count: Int, sum: Double, min: Double, max: Double) {
        self.count += count
        self.sum += sum
        self.min = Swift.min(self.min, min)
        self.max = Swift.max(self.max, max)
    }

    func value(_ name: String, type: ValueType) -> InfluxValue? {
        guard count > 0 else { return nil }
        switch name {
        case "count": return .integer(Int64(count))
        case "sum": return InfluxReducer.typed(sum, type)
        case "mean": return .float(sum / Double(count))
        case "min": return InfluxReducer.typed(min, type)
        case "max": return InfluxReducer.typed(max, type)
        default: return nil
        }
    }
}
