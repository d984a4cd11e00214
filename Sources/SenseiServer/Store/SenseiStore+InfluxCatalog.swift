import GRDB
import SenseiModels

/// The sensors and labels as InfluxQL's SHOW statements and series selection see them.
extension SenseiStore {
    /// Every sensor as InfluxQL sees it.
    func influxCatalog() throws -> InfluxCatalog {
        try pool.read { db in
            var labels: [Int64: [String: String]] = [:]
            let labelRows = BoundStatement(try db.cachedStatement(sql: "SELECT sensor_id, key, value FROM sensor_labels"))
            try labelRows.forEachRow { labels[$0.int64(0), default: [:]][$0.text(1)] = $0.text(2) }
            var series: [InfluxSeries] = []
            let sensors = BoundStatement(try db.cachedStatement(sql: "SELECT id, code, value_type FROM sensors ORDER BY id"))
            try sensors.forEachRow { row in
                let id = row.int64(0)
                series.append(InfluxSeries(sensorID: id, code: row.text(1),
                                           valueType: ValueType(rawValue: row.text(2)) ?? .float,
                                           labels: labels[id] ?? [:]))
            }
            return InfluxCatalog(series: series)
        }
    }
}

extension SenseiStore {
    /// `SHOW TAG VALUES WITH KEY = k` (or IN) without WHERE, from the label
    /// index alone: the distinct (measurement, key, value) of those keys,
    /// without building every sensor's series (10,000 sensors: the catalog
    /// reads 50,000 labels, this only the sensors that have the key).
    func influxTagValues(keys: [String]) throws -> [(measurement: String, key: String, value: String)] {
        let wanted = keys.filter { !InfluxSeries.untaggedLabels.contains($0) }
        guard !wanted.isEmpty else { return [] }
        return try pool.read { db in
            let statement = BoundStatement(try db.cachedStatement(sql: """
                SELECT DISTINCT coalesce(m.value, s.code), l.key, l.value
                FROM sensor_labels l
                JOIN sensors s ON s.id = l.sensor_id
                LEFT JOIN sensor_labels m ON m.sensor_id = l.sensor_id AND m.key = 'measurement'
                WHERE l.key IN (\(Array(repeating: "?", count: wanted.count).joined(separator: ", ")))
                """))
            for (index, key) in wanted.enumerated() { statement.bind(Int32(index + 1), key) }
            var rows: [(measurement: String, key: String, value: String)] = []
            try statement.forEachRow { rows.append(($0.text(0), $0.text(1), $0.text(2))) }
            return rows
        }
    }
}
