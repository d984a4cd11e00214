import GRDB
import SenseiModels

extension SensorCache {
    /// Keeps the compare marks (space in the list), in the order marked, so
    /// they outlive the dashboard: one JSON array of sensor ids in `metadata`.
    public func saveMarks(_ ids: [Int64]) throws {
        var writer = JSONWriter()
        writer.beginArray()
        for id in ids { writer.int(id) }
        writer.endArray()
        let text = writer.string
        try pool.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO metadata (key, value) VALUES ('marks', ?)", arguments: [text])
        }
    }

    /// The marks as last saved, in the order marked; empty when none.
    public func cachedMarks() throws -> [Int64] {
        guard let text = try pool.read({ db in
            try String.fetchOne(db, sql: "SELECT value FROM metadata WHERE key = 'marks'")
        }), let items = (try? JSONParser.parse(Array(text.utf8)))?.arrayValue else { return [] }
        return items.compactMap { $0.intValue.map(Int64.init) }
    }
}
