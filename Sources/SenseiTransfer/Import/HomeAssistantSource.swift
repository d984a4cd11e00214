import Foundation
import GRDB
import SenseiClient
import SenseiModels

/// Readings from a Home Assistant recorder database (`home-assistant_v2.db`,
/// recorder schema 30 and later), read with SQLite, entity by entity and a
/// page at a time (never a whole entity in memory):
/// - numeric `states` as readings (`unavailable`, `unknown` and other text
///   skipped and counted);
/// - long-term `statistics` for the hours the states no longer cover (hours
///   that end at or before the entity's first kept state), one reading an hour
///   at `start_ts`: the hour's `mean`, or for a meter (`has_sum`, or
///   `state_class` total/total_increasing) its `state`.
/// Timestamps are cut to the millisecond Sensei keeps (floored).
final class HomeAssistantSource: ImportSource {
    let path: String
    let size: Int64
    private(set) var bytesRead: Int64 = 0
    var refusals: [Refusal] = []
    private(set) var skipped: [String: Int] = [:]
    private(set) var notes: [String] = []
    private let database: DatabaseQueue
    private let schema: HomeAssistantSchema
    private let sensors: HomeAssistantSensors
    private var entities: [String]
    private var current: EntityCursor?
    private let pageSize: Int
    private var rowsRead = 0
    private let totalRows: Int

    var sensorsCreated: Int { sensors.created }

    init(path: String, client: APIClient, pageSize: Int = 10_000) throws {
        self.path = path
        self.pageSize = pageSize
        guard FileManager.default.fileExists(atPath: path) else { throw ImportError.cannotOpen(path, "no such file") }
        size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64).flatMap { $0 } ?? 0
        var configuration = Configuration()
        configuration.readonly = true
        do {
            let database = try DatabaseQueue(path: path, configuration: configuration)
            let schema = try database.read { try HomeAssistantSchema(db: $0) }
            (entities, totalRows) = try database.read { db in
                (try schema.entities(db), try Int.fetchOne(db, sql: "SELECT count(*) FROM states") ?? 0)
            }
            self.database = database
            self.schema = schema
        } catch let error as ImportError {
            throw error
        } catch {
            throw ImportError.notHomeAssistant(path, "\(error)")
        }
        sensors = HomeAssistantSensors(client: client)
        entities.reverse()
    }

    func nextBatch() async throws -> ImportBatch? {
        while true {
            if current == nil {
                guard let entity = entities.popLast() else {
                    notes = sensors.notes
                    return nil
                }
                current = try read { [schema] in try EntityCursor(entity: entity, schema: schema, db: $0) }
            }
            guard var cursor = current else { continue }
            let page = try read { [schema, pageSize] in try cursor.nextPage(schema: schema, limit: pageSize, db: $0) }
            current = cursor
            rowsRead += page.rowsRead
            if totalRows > 0 { bytesRead = Int64(Double(size) * min(1, Double(rowsRead) / Double(totalRows))) }
            for (reason, count) in page.skipped { skipped[reason, default: 0] += count }
            if page.finished { current = nil }
            guard !page.items.isEmpty else { continue }
            let code = try await sensors.ensure(cursor.metadata)
            return ImportBatch(payload: .readings(code: code, items: page.items), file: path,
                               lineNumbers: page.items.map(\.line), points: page.items.count)
        }
    }

    /// GRDB's blocking read, chosen outside an async context (inside one,
    /// Swift would pick its async overload, which wants a Sendable closure).
    private func read<T>(_ body: (Database) throws -> T) throws -> T {
        try database.read(body)
    }
}
