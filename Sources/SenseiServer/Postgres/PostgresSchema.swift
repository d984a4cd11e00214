import Foundation
import SenseiPostgres

/// Creates the schema in a new database, checks it in one made before: one
/// transaction, under an advisory lock, so that nodes starting at once do not
/// both create it.
enum PostgresSchema {
    /// The advisory lock key the schema's transaction holds ("sensei" in ASCII).
    static let lockKey: Int64 = 0x73_65_6E_73_65_69

    static func apply(_ sql: String, version: Int, with connections: PostgresConnections) throws {
        try connections.transaction { session in
            try session.execute("SELECT pg_advisory_xact_lock(\(lockKey))")
            let hasVersion = try session.row("SELECT to_regclass('sensei_schema') IS NOT NULL")?
                .decode(Bool.self) ?? false
            guard hasVersion else {
                let tables = try session.row("""
                    SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()
                    """)?.decode(Int64.self) ?? 0
                guard tables == 0 else { throw PostgresStoreError.notASenseiDatabase }
                for statement in statements(of: sql) { try session.script(statement) }
                return
            }
            let found = try session.row("SELECT max(version) FROM sensei_schema")?.decode(Int?.self) ?? 0
            if found > version { throw PostgresStoreError.newerSchema(found) }
            for step in steps where step.version > found && step.version <= version {
                try session.script(step.sql)
                try session.execute("INSERT INTO sensei_schema (version) VALUES (\(step.version))")
            }
        }
    }

    /// What takes a database made by an earlier version to the next one, in
    /// order; `schema-postgres.sql` is always the whole of the newest.
    static let steps: [(version: Int, sql: String)] = [
        // Readings without a foreign key (see schema-postgres.sql).
        (2, "ALTER TABLE readings DROP CONSTRAINT IF EXISTS readings_sensor_id_fkey"),
    ]

    /// The file's statements, without its comments: each ends with a `;` at
    /// the end of a line (the schema has no function bodies).
    static func statements(of sql: String) -> [String] {
        var statements: [String] = []
        var current = ""
        for line in sql.split(separator: "\n", omittingEmptySubsequences: false) {
            let code = line.range(of: "--").map { line[..<$0.lowerBound] } ?? line[...]
            guard !code.allSatisfy(\.isWhitespace) else { continue }
            current += code + "\n"
            if code.trimmingCharacters(in: .whitespaces).hasSuffix(";") {
                statements.append(current)
                current = ""
            }
        }
        return statements
    }
}
