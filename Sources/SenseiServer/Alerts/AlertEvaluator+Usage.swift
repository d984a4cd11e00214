import Foundation
import SenseiModels

/// `usage_above` rules on the evaluator's timer (docs/alerts.md, "Usage").
///
/// Why on the timer and at most once every `usageSpacing`: the usage of a
/// month so far is a query over up to a month of readings, too much to run
/// on the writer thread for every commit of a sensor written every second.
/// A commit only marks the rule stale; the timer runs the query for a stale
/// `ok` rule once its spacing has passed, so a busy sensor costs one query a
/// rule every few seconds, a quiet one none. A firing rule costs nothing
/// until its interval ends: it cannot fire again before. The usage is the
/// route's (`ReadingStore.usage`), so an alert and `GET /usage` agree.
extension AlertEvaluator {
    /// A rule's calendar; nil for rules other than `usage_above`. A zone the
    /// system no longer knows (its tz database changed) counts in UTC.
    func calendar(of alert: StoredAlert) -> UsageCalendar? {
        guard alert.rule.condition == .usageAbove, let interval = alert.rule.interval else { return nil }
        do {
            return UsageCalendar(interval: interval, zone: try alert.rule.timeZone.map { name throws(TimeZoneError) in
                try TimeZoneRules.named(name)
            } ?? .utc)
        } catch {
            logger.error("alert rule \(alert.id): \(error); counting its usage in UTC")
            return UsageCalendar(interval: interval, zone: .utc)
        }
    }

    /// Resolves the firing rules whose interval has ended, and fires the
    /// stale `ok` ones whose usage is past the threshold. The queries run
    /// outside the table's lock; a rule changed meanwhile is looked at again
    /// on the next tick.
    func checkUsage(now: Int64) {
        struct Due {
            var id: Int64
            var entry: Entry
            var calendar: UsageCalendar
        }
        let due: [Due] = table.withLock { table in
            var due: [Due] = []
            for (id, entry) in table.entries {
                guard let calendar = entry.calendar else { continue }
                if entry.status.state == .firing {
                    if AlertJudge.usageIntervalEnded(entry.status, calendar: calendar, now: now) {
                        due.append(Due(id: id, entry: entry, calendar: calendar))
                    }
                } else if entry.usageStale, entry.usageCheckedAt.map({ now - $0 >= usageSpacing }) ?? true {
                    table.entries[id]!.usageStale = false
                    table.entries[id]!.usageCheckedAt = now
                    due.append(Due(id: id, entry: entry, calendar: calendar))
                }
            }
            return due
        }
        guard !due.isEmpty else { return }
        var outcomes: [(Due, (AlertStatus, AlertJudge.Notice?)?)] = []
        for item in due {
            let rule = item.entry.rule, status = item.entry.status
            if status.state == .firing {
                let finished = try? usage(of: rule, item.calendar, over: item.calendar.period(containing: status.since),
                                          now: now)
                outcomes.append((item, AlertJudge.resolveUsage(rule, status, calendar: item.calendar, finished: finished,
                                                                now: now)))
            } else {
                let period = item.calendar.period(containing: now)
                do {
                    let used = try usage(of: rule, item.calendar, over: period, now: now)
                    outcomes.append((item, AlertJudge.judgeUsage(rule, status, usage: used, of: period, now: now)))
                } catch {
                    // A sensor deleted meanwhile takes the rule along; anything else is worth a line.
                    if let failure = error as? StoreError, case .sensorNotFound = failure {} else {
                        logger.error("alert rule \(item.id): computing usage failed: \(error)")
                    }
                }
            }
        }
        var changes: [AlertStatusChange] = []
        table.withLock { table in
            for (item, outcome) in outcomes {
                guard var entry = table.entries[item.id] else { continue }
                guard entry.rule == item.entry.rule, entry.status == item.entry.status else {
                    entry.usageStale = true
                    table.entries[item.id] = entry
                    continue
                }
                guard let (status, notice) = outcome else { continue }
                changes.append(AlertStatusChange(id: item.id, from: entry.status, to: status, notice: notice))
                entry.status = status
                // A new interval: its usage is looked at afresh.
                if status.state == .ok { entry.usageStale = true }
                table.entries[item.id] = entry
            }
        }
        save(changes, at: now)
        usageChecks.add(outcomes.count, ordering: .releasing)
    }

    /// The usage of the rule's sensor over `period`, as its stored kind counts it.
    private func usage(of rule: AlertRule, _ calendar: UsageCalendar, over period: Range<Int64>, now: Int64) throws -> Double {
        let query = UsageQuery(interval: calendar.interval, zone: calendar.zone, boundaries: [period.lowerBound, period.upperBound],
                               maxGap: UsageAccumulator.defaultMaxGap, now: Timestamp(milliseconds: now))
        return try store.usage(of: .id(rule.sensorID), query).total
    }
}
