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

    public init(sensors: [SensorSummary], filter: SensorFilter, groupBy key: String?) {
        let kept = sensors.indices.filter { filter.isEmpty || filter.matches(sensors[$0].sensor) }
        guard let key else {
            rows = kept.map(Row.sensor)
            order = kept
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
        var rows: [Row] = [], order: [Int] = []
        for value in values {
            let members = groups[value] ?? []
            rows.append(.header(value: value, count: members.count))
            rows += members.map(Row.sensor)
            order += members
        }
        self.rows = rows
        self.order = order
    }

    /// The row showing the `position`-th sensor of `order`.
    public func row(ofSensorAt position: Int) -> Int? {
        guard order.indices.contains(position) else { return nil }
        let index = order[position]
        return rows.firstIndex(of: .sensor(index))
    }
}
