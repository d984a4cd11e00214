import Foundation
import GRDB
import SenseiModels

/// One entity of a recorder database, read a page at a time: first its
/// long-term statistics older than its states, then its states.
struct EntityCursor {
    struct Metadata: Sendable {
        var entity: String
        var name: String?
        var units: String?
        var counter: Bool
    }

    struct Page {
        var items: [ImportBatch.ReadingItem] = []
        var skipped: [String: Int] = [:]
        var rowsRead = 0
        var finished = false
    }

    private enum Phase { case statistics, states, done }

    let metadata: Metadata
    private let stateFilter: (sql: String, argument: DatabaseValue)?
    private let statisticsId: Int64?
    /// Statistics count for the hours ending at or before this (the first state's time).
    private let statisticsUntil: Double
    private var phase: Phase = .statistics
    private var after: (time: Double, id: Int64) = (-Double.greatestFiniteMagnitude, Int64.min)

    init(entity: String, schema: HomeAssistantSchema, db: Database) throws {
        stateFilter = try schema.stateFilter(entity: entity, db: db)
        let meta = try Row.fetchOne(db, sql: """
            SELECT id, unit_of_measurement, name, has_sum FROM statistics_meta WHERE statistic_id = ?
            """, arguments: [entity])
        statisticsId = meta?["id"]
        var attributes: [String: JSONValue] = [:]
        var firstState: Double?
        if let filter = stateFilter {
            firstState = try Double.fetchOne(db, sql: "SELECT min(\(schema.stateTime)) FROM states WHERE \(filter.sql)",
                                             arguments: [filter.argument])
            // The newest attributes name the entity as Home Assistant shows it now.
            if let text = try String.fetchOne(db, sql: """
                SELECT shared_attrs FROM state_attributes WHERE attributes_id = (
                  SELECT attributes_id FROM states WHERE \(filter.sql) AND attributes_id IS NOT NULL
                  ORDER BY \(schema.stateTime) DESC LIMIT 1)
                """, arguments: [filter.argument]),
               let object = (try? JSONParser.parse(Array(text.utf8)))?.objectValue {
                attributes = object
            }
        }
        statisticsUntil = firstState ?? Double.greatestFiniteMagnitude
        let stateClass = attributes["state_class"]?.stringValue
        let hasSum = (meta?["has_sum"] as Bool?) ?? false
        metadata = Metadata(
            entity: entity,
            name: attributes["friendly_name"]?.stringValue ?? meta?["name"],
            units: meta?["unit_of_measurement"] ?? attributes["unit_of_measurement"]?.stringValue,
            counter: hasSum || stateClass == "total_increasing" || stateClass == "total")
    }

    mutating func nextPage(schema: HomeAssistantSchema, limit: Int, db: Database) throws -> Page {
        var page = Page()
        switch phase {
        case .statistics:
            guard let statisticsId else {
                phase = .states
                return try nextPage(schema: schema, limit: limit, db: db)
            }
            // A meter's hour is its counter's state then; anything else, the hour's mean.
            let value = metadata.counter ? "state" : "mean"
            let rows = try Row.fetchAll(db, sql: """
                SELECT id, \(value) AS value, \(schema.statisticTime) AS t FROM statistics
                WHERE metadata_id = ? AND t + 3600 <= ? AND (t > ? OR (t = ? AND id > ?))
                ORDER BY t, id LIMIT ?
                """, arguments: [statisticsId, statisticsUntil, after.time, after.time, after.id, limit])
            for row in rows {
                let id: Int64 = row["id"], time: Double = row["t"]
                after = (time, id)
                guard let value = row["value"] as Double?, value.isFinite else {
                    page.skipped["statistics hours without a value", default: 0] += 1
                    continue
                }
                page.items.append(.init(line: Int(id), milliseconds: HomeAssistantSchema.milliseconds(time), value: value))
            }
            if rows.count < limit {
                phase = .states
                after = (-Double.greatestFiniteMagnitude, Int64.min)
            }
        case .states:
            guard let filter = stateFilter else {
                phase = .done
                page.finished = true
                return page
            }
            let rows = try Row.fetchAll(db, sql: """
                SELECT state_id, state, \(schema.stateTime) AS t FROM states
                WHERE \(filter.sql) AND t IS NOT NULL AND (t > ? OR (t = ? AND state_id > ?))
                ORDER BY t, state_id LIMIT ?
                """, arguments: [filter.argument, after.time, after.time, after.id, limit])
            page.rowsRead = rows.count
            for row in rows {
                let id: Int64 = row["state_id"], time: Double = row["t"]
                after = (time, id)
                let state: String? = row["state"]
                guard let state, let value = Double(state), value.isFinite else {
                    let reason = switch state {
                    case "unavailable": "states 'unavailable'"
                    case "unknown": "states 'unknown'"
                    case nil, "": "empty states"
                    default: "text states"
                    }
                    page.skipped[reason, default: 0] += 1
                    continue
                }
                page.items.append(.init(line: Int(id), milliseconds: HomeAssistantSchema.milliseconds(time), value: value))
            }
            if rows.count < limit {
                phase = .done
                page.finished = true
            }
        case .done:
            page.finished = true
        }
        return page
    }
}
