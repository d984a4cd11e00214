/// Usage per calendar interval from readings fed oldest first: a counter's
/// increase or a gauge's time integral, each piece between two readings split
/// at interval boundaries in proportion to the time on either side (the value
/// interpolated linearly at the boundary, as InfluxDB's `integral()` does), so
/// the intervals add up to the whole range.
public struct UsageAccumulator: Sendable {
    public let kind: SensorKind
    /// Interval starts, then the end of the last: `values.count + 1` instants.
    public let boundaries: [Int64]
    /// A gauge's longest gap bridged, milliseconds: nothing is counted across a longer one.
    public let maxGap: Int64
    public private(set) var values: [Double]
    public private(set) var counts: [Int]
    private var previous: (time: Int64, value: Double)?

    /// The contract's default `maxGap`: 15 minutes.
    public static let defaultMaxGap: Int64 = 900_000

    public init(kind: SensorKind, boundaries: [Int64], maxGap: Int64 = defaultMaxGap) {
        precondition(boundaries.count >= 1, "at least the end of the range")
        self.kind = kind
        self.boundaries = boundaries
        self.maxGap = maxGap
        values = Array(repeating: 0, count: boundaries.count - 1)
        counts = Array(repeating: 0, count: boundaries.count - 1)
    }

    /// One reading, after every earlier one (a reading before the first
    /// boundary or after the last bridges into the range without being counted).
    public mutating func add(time: Int64, value: Double) {
        if let index = interval(holding: time) { counts[index] += 1 }
        bridge(to: time, value)
    }

    /// A stretch summarised beforehand (a rollup hour): the piece from the last
    /// reading fed to its first reading, then its own usage and count, which
    /// must lie in one interval (the one holding `first`).
    public mutating func add(first: (time: Int64, value: Double), last: (time: Int64, value: Double),
                             usage: Double, count: Int) {
        bridge(to: first.time, first.value)
        if let index = interval(holding: first.time) {
            values[index] += usage
            counts[index] += count
        }
        previous = last
    }

    /// A summarised stretch (a packed hour) added whole when its readings all
    /// lie in one interval of the range and its usage does not depend on
    /// readings it leaves out (a gauge's longest gap is within `maxGap`);
    /// otherwise nothing is added and the caller feeds its readings instead.
    public mutating func add(_ summary: UsageSummary) -> Bool {
        guard let usage = summary.usage(kind: kind, maxGap: maxGap),
              let index = interval(holding: summary.firstTime), index == interval(holding: summary.lastTime) else {
            return false
        }
        add(first: (summary.firstTime, summary.firstValue), last: (summary.lastTime, summary.lastValue),
            usage: usage, count: summary.count)
        return true
    }

    /// The usage between two readings, on its own (a rollup's internal sum).
    public static func piece(kind: SensorKind, from start: (time: Int64, value: Double),
                             to end: (time: Int64, value: Double), maxGap: Int64 = defaultMaxGap) -> Double {
        guard end.time > start.time else { return 0 }
        switch kind {
        case .counter:
            // A drop is a restart: the device counted up from 0 to the new value.
            return end.value >= start.value ? end.value - start.value : end.value
        case .gauge:
            guard end.time - start.time <= maxGap else { return 0 }
            return (start.value + end.value) / 2 * Double(end.time - start.time) / 3_600_000
        }
    }

    private mutating func bridge(to time: Int64, _ value: Double) {
        defer { previous = (time, value) }
        guard let previous, time > previous.time else { return }
        let whole = Self.piece(kind: kind, from: previous, to: (time, value), maxGap: maxGap)
        guard whole != 0, time > boundaries[0], previous.time < boundaries[boundaries.count - 1] else { return }
        let span = Double(time - previous.time)
        var index = interval(holding: max(previous.time, boundaries[0])) ?? 0
        while index < values.count, boundaries[index] < time {
            let from = max(previous.time, boundaries[index]), to = min(time, boundaries[index + 1])
            if to > from {
                switch kind {
                case .counter:
                    values[index] += whole * Double(to - from) / span
                case .gauge:
                    // The trapezoid under the line between the two readings, cut at the boundaries.
                    let slope = (value - previous.value) / span
                    let atFrom = previous.value + slope * Double(from - previous.time)
                    let atTo = previous.value + slope * Double(to - previous.time)
                    values[index] += (atFrom + atTo) / 2 * Double(to - from) / 3_600_000
                }
            }
            index += 1
        }
    }

    /// The index of the interval holding `time`, by bisection; nil outside the range.
    private func interval(holding time: Int64) -> Int? {
        guard time >= boundaries[0], time < boundaries[boundaries.count - 1] else { return nil }
        var low = 0, high = boundaries.count - 1
        while high - low > 1 {
            let middle = (low + high) / 2
            if boundaries[middle] <= time { low = middle } else { high = middle }
        }
        return low
    }
}
