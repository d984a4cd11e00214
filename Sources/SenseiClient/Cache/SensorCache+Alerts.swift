import GRDB
import SenseiModels

extension SensorCache {
    /// Keeps the server's alert rules as last seen, so the list's `!` marks
    /// and `sensei alerts` still answer while the server is away. One JSON
    /// value in `metadata`: a few rules, always read and written whole.
    public func saveAlerts(_ alerts: [AlertStatus]) throws {
        try pool.write { db in try Self.storeAlerts(alerts, in: db) }
    }

    /// The rules as last saved; empty when none were ever fetched.
    public func cachedAlerts() throws -> [AlertStatus] {
        try pool.read { db in try Self.fetchAlerts(in: db) }
    }

    /// Keeps a list just fetched from the server. The stream may have moved a
    /// rule on while the list was on its way (its change already applied
    /// here): a rule kept that entered its state after the fetched one's
    /// stays as it is, so a sync does not put an older state back.
    public func saveFetchedAlerts(_ fetched: [AlertStatus]) throws {
        try pool.write { db in
            let kept = Dictionary(try Self.fetchAlerts(in: db).map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
            let merged = fetched.map { rule in kept[rule.id].map { $0.since > rule.since ? $0 : rule } ?? rule }
            try Self.storeAlerts(merged, in: db)
        }
    }

    /// Applies a change the live stream pushed to the rules kept (one
    /// transaction, so two changes in a row never lose one), and returns them.
    @discardableResult
    public func applyAlertChange(_ change: AlertChange) throws -> [AlertStatus] {
        try pool.write { db in
            let rules = try Self.fetchAlerts(in: db).applying(change)
            try Self.storeAlerts(rules, in: db)
            return rules
        }
    }

    private static func storeAlerts(_ alerts: [AlertStatus], in db: Database) throws {
        var writer = JSONWriter()
        writer.beginArray()
        for alert in alerts { alert.write(to: &writer) }
        writer.endArray()
        try db.execute(sql: "INSERT OR REPLACE INTO metadata (key, value) VALUES ('alerts', ?)", arguments: [writer.string])
    }

    private static func fetchAlerts(in db: Database) throws -> [AlertStatus] {
        guard let text = try String.fetchOne(db, sql: "SELECT value FROM metadata WHERE key = 'alerts'"),
              let items = (try? JSONParser.parse(Array(text.utf8)))?.arrayValue else { return [] }
        return items.compactMap { try? AlertStatus(json: $0) }
    }
}
