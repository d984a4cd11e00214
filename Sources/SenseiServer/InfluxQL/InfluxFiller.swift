/// GROUP BY time's `fill()`: what an empty window shows (InfluxDB's fill
/// iterators). `count` shows 0 where others show null, as InfluxDB does.
enum InfluxFiller {
    static func fill(_ rows: [[InfluxValue?]], times: [Int64], fill: InfluxFill, counts: [Bool]) -> [[InfluxValue]] {
        var out: [[InfluxValue]] = []
        var previous = [InfluxValue?](repeating: nil, count: counts.count)
        let neighbours = fill == .linear ? Self.neighbours(rows, columns: counts.count) : []
        for (index, row) in rows.enumerated() {
            let empty = row.allSatisfy { $0 == nil }
            if empty && fill == .none { continue }
            var values: [InfluxValue] = [.time(times[index])]
            for (column, value) in row.enumerated() {
                if let value {
                    values.append(value)
                    previous[column] = value
                    continue
                }
                switch fill {
                case .null, .none: values.append(counts[column] ? .integer(0) : .null)
                case .number(let number):
                    values.append(number.rounded() == number && abs(number) < 9.2e18 && counts[column]
                                  ? .integer(Int64(number)) : .float(number))
                case .previous: values.append(previous[column] ?? .null)
                case .linear:
                    let (before, after) = neighbours[column]
                    values.append(linear(rows, times: times, at: index, column: column,
                                         before: before[index], after: after[index]))
                }
            }
            out.append(values)
        }
        return out
    }

    /// Per column, the nearest row before and after each row that has a
    /// value: two passes, so a long run of empty windows costs no more than
    /// the windows themselves.
    private static func neighbours(_ rows: [[InfluxValue?]], columns: Int) -> [(before: [Int?], after: [Int?])] {
        (0..<columns).map { column in
            var before = [Int?](repeating: nil, count: rows.count), after = before
            var last: Int?
            for index in rows.indices {
                before[index] = last
                if rows[index][column] != nil { last = index }
            }
            last = nil
            for index in rows.indices.reversed() {
                after[index] = last
                if rows[index][column] != nil { last = index }
            }
            return (before, after)
        }
    }

    /// The value on the line between the nearest windows before and after
    /// that have one; null at the ends.
    private static func linear(_ rows: [[InfluxValue?]], times: [Int64], at index: Int, column: Int,
                               before: Int?, after: Int?) -> InfluxValue {
        guard let before, let after, let a = rows[before][column], let b = rows[after][column],
              let x = a.number, let y = b.number else { return .null }
        let fraction = Double(times[index] - times[before]) / Double(times[after] - times[before])
        if case .integer(let i) = a, case .integer(let j) = b {
            return .integer(i &+ (j &- i) &* (times[index] &- times[before]) / (times[after] &- times[before]))
        }
        return .float(x + (y - x) * fraction)
    }
}
