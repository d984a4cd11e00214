import SenseiModels

/// InfluxDB 1.8's transformations (`query/functions.go`): each reads a
/// series of points in the query's order (raw points, or a nested
/// aggregate's windows) and gives points of its own.
enum InfluxTransform {
    static let names: Set<String> = ["derivative", "non_negative_derivative", "difference", "non_negative_difference",
                                     "moving_average", "cumulative_sum", "elapsed"]

    /// `points` in output order (`ascending` or not); `unit` in nanoseconds
    /// for derivative and elapsed, `n` for moving_average.
    static func apply(_ name: String, _ points: [InfluxPoint], ascending: Bool, unit: Int64, n: Int,
                      type: ValueType) -> [(time: Int64, value: InfluxValue)] {
        var out: [(time: Int64, value: InfluxValue)] = []
        switch name {
        case "derivative", "non_negative_derivative", "difference", "non_negative_difference", "elapsed":
            var previous: InfluxPoint?
            for point in points {
                // A point at the time of the one before adds nothing (joined series).
                if let last = previous, last.time == point.time { continue }
                defer { previous = point }
                guard let last = previous else { continue }
                let diff = point.value - last.value
                switch name {
                case "derivative", "non_negative_derivative":
                    let elapsed = Double(ascending ? point.time - last.time : last.time - point.time)
                    if name == "non_negative_derivative" && diff < 0 { continue }
                    out.append((point.time, .float(diff / (elapsed / Double(unit)))))
                case "elapsed":
                    out.append((point.time, .integer((point.time - last.time) / unit)))
                default:
                    if name == "non_negative_difference" && diff < 0 { continue }
                    out.append((point.time, InfluxReducer.typed(diff, type == .bool ? .float : type)))
                }
            }
        case "moving_average":
            var window: [Double] = []
            var sum = 0.0
            for point in points {
                window.append(point.value)
                sum += point.value
                if window.count > n { sum -= window.removeFirst() }
                if window.count == n { out.append((point.time, .float(sum / Double(n)))) }
            }
        case "cumulative_sum":
            var sum = 0.0
            for point in points {
                sum += point.value
                out.append((point.time, InfluxReducer.typed(sum, type == .bool ? .float : type)))
            }
        default:
            break
        }
        return out
    }

    /// `integral(field[, unit])`: the area under the points, by trapezoids;
    /// with GROUP BY time the line between two points is cut at each window's
    /// end and each window sums its own part (`FloatIntegralReducer`).
    /// Windows are (start, end); answers one value per window that has points.
    static func integral(_ points: [InfluxPoint], unit: Int64,
                         windows: [(start: Int64, end: Int64)]?) -> [Int64: Double] {
        guard let windows else {
            var sum = 0.0
            var previous: InfluxPoint?
            for point in points {
                if let last = previous, last.time != point.time {
                    sum += 0.5 * (point.value + last.value) * Double(point.time - last.time) / Double(unit)
                }
                previous = point
            }
            return points.isEmpty ? [:] : [0: sum]
        }
        var sums: [Int64: Double] = [:]
        var previous: InfluxPoint?
        var window = 0
        var sum = 0.0
        func windowIndex(_ t: Int64) -> Int? {
            var low = 0, high = windows.count
            while low < high {
                let middle = (low + high) / 2
                if windows[middle].end <= t { low = middle + 1 } else { high = middle }
            }
            return low < windows.count && windows[low].start <= t ? low : nil
        }
        for point in points {
            guard var last = previous else {
                previous = point
                window = windowIndex(point.time) ?? 0
                sum = 0
                continue
            }
            if last.time == point.time {
                previous = point
                continue
            }
            if point.time >= windows[window].end {
                let end = windows[window].end
                if last.time != end {
                    let value = last.value + (point.value - last.value) * Double(end - last.time) / Double(point.time - last.time)
                    sum += 0.5 * (value + last.value) * Double(end - last.time) / Double(unit)
                    last = InfluxPoint(time: end, value: value)
                }
                sums[windows[window].start] = sum
                sum = 0
                window = windowIndex(point.time) ?? window
            }
            sum += 0.5 * (point.value + last.value) * Double(point.time - last.time) / Double(unit)
            previous = point
        }
        if let last = previous, last.time != windows[window].start {
            sums[windows[window].start] = sum
        }
        return sums
    }
}
