import SenseiModels

extension TimeSeries {
    /// A counter's points with its resets taken out: after a drop the count
    /// carries on from where it was, as if the device had never restarted
    /// (the reading after a drop counts from 0, as in the usage contract), so
    /// a reset is no plunge to zero on the chart. Rises are left as they are.
    ///
    /// Buckets hold no first and last value, only min, max and mean: a bucket
    /// whose min is below the previous one's max held a reset, taken to come
    /// after the bucket's max (or the previous max, if higher); that bucket is
    /// drawn from the previous level up to it, and what the counter made after
    /// the reset within it joins the next one's level. Close, not exact.
    public func withoutResets() -> TimeSeries {
        guard count > 1 else { return self }
        guard let lows = minimums, let highs = maximums, let counts else {
            var adjusted = values, offset = 0.0
            for index in 1..<count {
                if values[index] < values[index - 1] { offset += values[index - 1] }
                adjusted[index] = values[index] + offset
            }
            return TimeSeries(timestamps: timestamps, values: adjusted)
        }
        var buckets = [Bucket(timestamp: Timestamp(milliseconds: timestamps[0]), mean: values[0], min: lows[0],
                              max: highs[0], count: counts[0])]
        buckets.reserveCapacity(count)
        // `previous`: the highest the counter is known to have stood at the end
        // of the last bucket; after a reset bucket only its low is sure.
        var offset = 0.0, previous = highs[0]
        for index in 1..<count {
            let time = Timestamp(milliseconds: timestamps[index])
            let (low, high) = (lows[index], highs[index])
            if low < previous {
                let level = buckets[index - 1].max
                let peak = Swift.max(high, previous)
                let top = Swift.max(level, offset + peak)
                buckets.append(Bucket(timestamp: time, mean: (level + top) / 2, min: level, max: top,
                                      count: counts[index]))
                offset += peak
                previous = low
            } else {
                buckets.append(Bucket(timestamp: time, mean: values[index] + offset, min: low + offset,
                                      max: high + offset, count: counts[index]))
                previous = high
            }
        }
        return TimeSeries(buckets: buckets)
    }
}
