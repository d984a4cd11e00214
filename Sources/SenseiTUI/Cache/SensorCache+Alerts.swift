import GRDB
import SenseiModels

extension SensorCache {
    /// Keeps the server's alert rules as last seen, so the list's `!` marks
    /// and `sensei alerts` still answer while the server is away. One JSON
    /// value in `metadata`: a few rules, always read and written whole.
    public func saveAlerts(_ alerts: [AlertStatus]) throws {
        var writer = JSONWriter()
        writer.beginArray()
        for alert in alerts { alert.write(to: &writer) }
        writer.endArray()
        let text = writer.string
        try pool.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO metadata (key, value) VALUES ('alerts', ?)", arguments: [text])
        }
    }

    /// The rules as last saved; empty when none were ever fetched.
    public func cachedAlerts() throws -> [AlertStatus] {
        guard let text = try pool.read({ db in
            try String.fetchOne(db, sql: "SELECT value FROM metadata WHERE key = 'alerts'")
        }), let items = (try? JSONParser.parse(Array(text.utf8)))?.arrayValue else { return [] }
        return items.compactMap { try? AlertStatus(json: $0) }
    }
}
