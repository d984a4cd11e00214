import SenseiClient

/// The sensor list as shown: the sensors the filter keeps, in the user's
/// order, or grouped under headers by one label's value (the user's order
/// holding within each group).
public struct ListLayout: Hashable, Sendable {
    public enum Row: Hashable, Sendable {
        /// A group's header: the label's value (nil: sensors without the label) and how many it holds.
        case header(value: String?, count: Int)
        /// A sensor, by its index in `AppModel.sensors`.
        case sensor(Int)
    }

    /// Every row on screen, headers included, top first.
    public let rows: [Row]
    /// The sensors shown (indices in `AppModel.sensors`), top first: what the
    /// selection moves over.
    public let order: [Int]
    /// The row of each place in `order`.
    private let rowOfPosition: [Int]

    /// Made only when the sensors, the filter or the grouping change (the
    /// model keeps it), never per frame: at 10,000 sensors this is the
    /// list's one pass over all of them.
    public init(sensors: [SensorSummary], filter: SensorFilter, groupBy key: String?) {
        let kept = sensors.indices.filter { filter.isEmpty || filter.matches(sensors[$0].sensor, key: sensors[$0].searchKey) }
        guard let key else {
            rows = kept.map(Row.sensor)
            order = kept
            rowOfPosition = Array(kept.indices)
            return
        }
        // Groups by value, in value order; sensors without the label last.
        let groups = Dictionary(grouping: kept) { sensors[$0].sensor.labels[key] }
        let values = groups.keys.sorted { a, b in
            switch (a, b) {
            case (nil, _): false
            case (_, nil): true
            case let (a?, b?): (a.lowercased(), a) < (b.lowercased(), b)
            }
        }
        var rows: [Row] = [], order: [Int] = [], rowOfPosition: [Int] = []
        for value in values {
            let members = groups[value] ?? []
            rows.append(.header(value: value, count: members.count))
            rowOfPosition += rows.count..<(rows.count + members.count)
            rows += members.map(Row.sensor)
            order += members
        }
        self.rows = rows
        self.order = order
        self.rowOfPosition = rowOfPosition
    }

    /// The row showing the `position`-th sensor of `order`.
    public func row(ofSensorAt position: Int) -> Int? {
        rowOfPosition.indices.contains(position) ? rowOfPosition[position] : nil
    }

    /// The sensors (indices in `AppModel.sensors`) on rows `range`, top first.
    public func sensors(onRows range: Range<Int>) -> [Int] {
        range.clamped(to: rows.indices).compactMap { row in
            if case .sensor(let index) = rows[row] { index } else { nil }
        }
    }
}

/// The widest name and latest value of all sensors, shown or not, as
/// `ListView` writes them: the columns stay put while the filter narrows.
/// Measured when the sensors change, not per frame.
public struct ListWidths: Hashable, Sendable {
    public var name = 0
    public var value = 0

    public init() {}

    public init(sensors: [SensorSummary], charset: Charset) {
        for summary in sensors {
            name = max(name, charset.displayable(summary.sensor.name).count)
            value = max(value, ListView.valueText(summary, charset: charset).count)
        }
    }
}
