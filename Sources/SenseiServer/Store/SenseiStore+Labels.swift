import GRDB
import SenseiModels

/// A change to a sensor's labels, as `PATCH` sends it (JSON merge patch): a
/// string sets the key, nil removes it, keys not named stay.
public typealias LabelPatch = [String: String?]

extension SenseiStore {
    /// One sensor's labels.
    static func labels(of sensorID: Int64, in db: Database) throws -> [String: String] {
        let statement = BoundStatement(try db.cachedStatement(sql: "SELECT key, value FROM sensor_labels WHERE sensor_id = ?"))
        statement.bind(1, sensorID)
        var labels: [String: String] = [:]
        try statement.forEachRow { labels[$0.text(0)] = $0.text(1) }
        return labels
    }

    /// `WHERE <column> IN (…) AND …`, one sub-select per pair: each is a
    /// lookup in `sensor_labels_by_pair`.
    static func labelFilterClause(_ filter: [(key: String, value: String)], column: String) -> String {
        guard !filter.isEmpty else { return "" }
        let each = "\(column) IN (SELECT sensor_id FROM sensor_labels WHERE key = ? AND value = ?)"
        return "WHERE " + Array(repeating: each, count: filter.count).joined(separator: " AND ")
    }

    static func bindLabelFilter(_ filter: [(key: String, value: String)], to statement: BoundStatement) {
        for (index, pair) in filter.enumerated() {
            statement.bind(Int32(2 * index + 1), pair.key)
            statement.bind(Int32(2 * index + 2), pair.value)
        }
    }

    /// Writes a new sensor's labels (its row has none yet).
    static func insertLabels(_ labels: [String: String], of sensorID: Int64, in db: Database) throws {
        guard !labels.isEmpty else { return }
        let insert = BoundStatement(try db.cachedStatement(sql: """
            INSERT INTO sensor_labels (sensor_id, key, value) VALUES (?, ?, ?)
            """))
        for (key, value) in labels {
            insert.bind(1, sensorID)
            insert.bind(2, key)
            insert.bind(3, value)
            try insert.run()
        }
    }

    /// Applies a merge patch; the result must keep within `SensorLabels.maximumCount`.
    static func applyLabels(_ patch: LabelPatch, to sensorID: Int64, in db: Database) throws {
        var labels = try labels(of: sensorID, in: db)
        for (key, value) in patch { labels[key] = value }
        guard labels.count <= SensorLabels.maximumCount else {
            throw StoreError.tooManyLabels(labels.count)
        }
        try db.execute(sql: "DELETE FROM sensor_labels WHERE sensor_id = ?", arguments: [sensorID])
        try insertLabels(labels, of: sensorID, in: db)
    }
}
