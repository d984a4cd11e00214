import SenseiPostgres
import SenseiModels

/// The database names InfluxDB clients used (`ReadingStore`): SHOW DATABASES lists them.
extension PostgresStore {
    /// Remembers `name`; a name this node knows costs no write, and one
    /// another node wrote first is no conflict.
    func recordInfluxDatabase(_ name: String) throws {
        guard !name.isEmpty, !knownInfluxDatabases.contains(name) else { return }
        try read { try $0.execute("INSERT INTO influx_databases (name) VALUES (\(name)) ON CONFLICT DO NOTHING") }
        knownInfluxDatabases.insert(name)
    }

    /// Every name, sorted.
    func influxDatabases() throws -> [String] {
        try read { session in
            // Byte order, as SQLite's.
            try session.rows(#"SELECT name FROM influx_databases ORDER BY name COLLATE "C""#)
                .map { try $0.decode(String.self) }
        }
    }
}
