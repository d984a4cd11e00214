/// What usage needs to know of a stretch of readings without reading them
/// again (a packed hour, `reading_blocks`): its first and last reading, how
/// many, and its own usage both ways — a gauge's trapezoids and a counter's
/// rises, each by `UsageAccumulator.piece`, so the rules stay in one place.
///
/// The integral bridges every gap: whether a gap is too long depends on the
/// query's `maxGap`, so the summary keeps its longest one and a query whose
/// `maxGap` is shorter reads the readings instead.
public struct UsageSummary: Sendable, Equatable {
    public var firstTime: Int64
    public var firstValue: Double
    public var lastTime: Int64
    public var lastValue: Double
    public var count: Int
    /// The trapezoids between consecutive readings, value·hours (W → Wh), no gap cut off.
    public var integral: Double
    /// The longest time between consecutive readings, milliseconds (0 for one reading).
    public var longestGap: Int64
    /// The counter's increase: every rise, and after a drop (a restart) the value counted from 0.
    public var increase: Double

    public init(firstTime: Int64, firstValue: Double, lastTime: Int64, lastValue: Double, count: Int,
                integral: Double, longestGap: Int64, increase: Double) {
        self.firstTime = firstTime
        self.firstValue = firstValue
        self.lastTime = lastTime
        self.lastValue = lastValue
        self.count = count
        self.integral = integral
        self.longestGap = longestGap
        self.increase = increase
    }

    /// The summary of readings in time order (strictly increasing times); nil for none.
    public init?(timestamps: [Int64], values: [Double]) {
        precondition(timestamps.count == values.count, "a timestamp per value")
        guard let firstTime = timestamps.first, let lastTime = timestamps.last else { return nil }
        var integral = 0.0, increase = 0.0
        var longestGap: Int64 = 0
        for index in timestamps.indices.dropFirst() {
            let start = (timestamps[index - 1], values[index - 1]), end = (timestamps[index], values[index])
            integral += UsageAccumulator.piece(kind: .gauge, from: start, to: end, maxGap: .max)
            increase += UsageAccumulator.piece(kind: .counter, from: start, to: end)
            longestGap = max(longestGap, end.0 - start.0)
        }
        self.init(firstTime: firstTime, firstValue: values[0], lastTime: lastTime, lastValue: values[values.count - 1],
                  count: timestamps.count, integral: integral, longestGap: longestGap, increase: increase)
    }

    /// The usage of the stretch itself for a sensor of `kind`; nil when a
    /// gauge's gap is longer than `maxGap` (its readings must be read).
    public func usage(kind: SensorKind, maxGap: Int64) -> Double? {
        switch kind {
        case .counter: increase
        case .gauge: longestGap <= maxGap ? integral : nil
        }
    }
}
