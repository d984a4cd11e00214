/// GROUP BY time's `fill()`: what an empty window shows (InfluxDB's fill
/// iterators). `count` shows 0 where others show null, as InfluxDB does.
enum InfluxFiller {
    static func fill(_ rows: [[InfluxValue?]], times: [Int64], fill: InfluxFill, counts: [Bool]) -> [[InfluxValue]] {
        var out: [[InfluxValue]] = []
        var previous = [InfluxValue?](repeating: nil, count: counts.count)
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
                    values.append(number.rounded() == number && counts[column] ? .integer(Int64(number)) : .float(number))
                case .previous: values.append(previous[column] ?? .null)
                case .linear: values.append(linear(rows, times: times, at: index, column: column))
                }
            }
            out.append(values)
        }
        return out
    }

    /// The value on the line between the nearest windows before and after
    /// that have one; null at the ends.
    private static func linear(_ rows: [[InfluxValue?]], times: [Int64], at index: Int, column: Int) -> InfluxValue {
        guard let before = (0..<index).last(where: { rows[$0][column] != nil }),
              let after = ((index + 1)..<rows.count).first(where: { rows[$0][column] != nil }),
              let a = rows[before][column], let b = rows[after][column],
              let x = a.number, let y = b.number else { return .null }
        let fraction = Double(times[index] - times[before]) / Double(times[after] - times[before])
        if case .integer(let i) = a, case .integer(let j) = b {
            return .integer(i + (j - i) * (times[index] - times[before]) / (times[after] - times[before]))
        }
        return .float(x + (y - x) * fraction)
    }
}
