import Synchronization
import GRDB

/// The database names InfluxDB clients used (`influx_databases`): Sensei
/// keeps everything in one store, but SHOW DATABASES must list the names a
/// house's clients were set up with.
extension SenseiStore {
    /// Remembers `name`; a name already known costs no write.
    func recordInfluxDatabase(_ name: String) throws {
        guard !name.isEmpty, !knownInfluxDatabases.contains(name) else { return }
        try pool.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO influx_databases (name) VALUES (?)", arguments: [name])
        }
        knownInfluxDatabases.insert(name)
    }

    /// Every name, sorted.
    func influxDatabases() throws -> [String] {
        try pool.read { db in try String.fetchAll(db, sql: "SELECT name FROM influx_databases ORDER BY name") }
    }
}

/// The names this process has written, so that each request of a writer
/// sending `db=telegraf` does not open a write transaction.
final class KnownNames: Sendable {
    private let names = Mutex<Set<String>>([])

    func contains(_ name: String) -> Bool { names.withLock { $0.contains(name) } }
    func insert(_ name: String) { _ = names.withLock { $0.insert(name) } }
}
