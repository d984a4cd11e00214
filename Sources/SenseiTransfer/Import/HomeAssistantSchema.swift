import GRDB

/// What a recorder database's schema offers, read from the database itself:
/// schema 36 and later keep entity ids in `states_meta` (states point at them
/// by `metadata_id`), before that in `states.entity_id`; schema 31 and later
/// keep times as epoch seconds (`last_updated_ts`, `start_ts`), schema 30 as
/// date-time text, read here through `julianday` into the same seconds.
struct HomeAssistantSchema: Sendable {
    static let oldestVersion = 30
    let version: Int
    let hasStatesMeta: Bool
    /// SQL giving a state's or a statistic's time in epoch seconds.
    let stateTime: String
    let statisticTime: String

    init(db: Database) throws {
        for table in ["states", "statistics", "statistics_meta", "schema_changes"] where try !db.tableExists(table) {
            throw ImportError.notHomeAssistant(db.description, "it has no table \(table)")
        }
        version = try Int.fetchOne(db, sql: "SELECT max(schema_version) FROM schema_changes") ?? 0
        guard version >= Self.oldestVersion else {
            throw ImportError.notHomeAssistant(
                db.description, "recorder schema \(version); schema \(Self.oldestVersion) (Home Assistant 2022.12) or later is needed: open it once with a newer Home Assistant")
        }
        hasStatesMeta = try db.tableExists("states_meta")
        let stateColumns = Set(try db.columns(in: "states").map(\.name))
        let statisticColumns = Set(try db.columns(in: "statistics").map(\.name))
        stateTime = stateColumns.contains("last_updated_ts") ? "last_updated_ts" : Self.seconds("last_updated")
        statisticTime = statisticColumns.contains("start_ts") ? "start_ts" : Self.seconds("start")
    }

    private static func seconds(_ column: String) -> String { "((julianday(\(column)) - 2440587.5) * 86400.0)" }

    /// Every entity with states, and every statistic id, once, sorted.
    func entities(_ db: Database) throws -> [String] {
        let states = hasStatesMeta ? "SELECT entity_id FROM states_meta"
                                   : "SELECT DISTINCT entity_id FROM states WHERE entity_id IS NOT NULL"
        return try String.fetchAll(db, sql: "\(states) UNION SELECT statistic_id FROM statistics_meta ORDER BY 1")
    }

    /// How the states of one entity are selected: by its `metadata_id` or its entity id.
    func stateFilter(entity: String, db: Database) throws -> (sql: String, argument: DatabaseValue)? {
        if hasStatesMeta {
            guard let id = try Int64.fetchOne(db, sql: "SELECT metadata_id FROM states_meta WHERE entity_id = ?",
                                              arguments: [entity]) else { return nil }
            return ("metadata_id = ?", id.databaseValue)
        }
        return ("entity_id = ?", entity.databaseValue)
    }

    /// Sensei's millisecond (floored) of a recorder time in epoch seconds,
    /// first rounded to the microsecond the recorder wrote.
    static func milliseconds(_ seconds: Double) -> Int64 {
        let micro = Int64((seconds * 1_000_000).rounded())
        return micro >= 0 ? micro / 1000 : -((-micro + 999) / 1000)
    }
}
