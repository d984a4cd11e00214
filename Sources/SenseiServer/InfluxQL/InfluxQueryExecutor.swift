/// Runs a query's statements one after the other, each to its own result;
/// InfluxDB runs none after a failing one (see `InfluxStatementAnswers`).
struct InfluxQueryExecutor {
    let store: any SensorStore & ReadingStore & RollupStore

    func run(_ statements: [InfluxStatement]) -> [(id: Int, result: InfluxStatementResult, zone: TimeZoneBox?)] {
        let now = InfluxTime.now()
        var catalog: InfluxCatalog?
        func loadCatalog() throws(InfluxQueryError) -> InfluxCatalog {
            if let catalog { return catalog }
            do {
                let loaded = try store.influxCatalog()
                catalog = loaded
                return loaded
            } catch {
                throw InfluxQueryError("reading the store failed: \(error)")
            }
        }
        var results: [(id: Int, result: InfluxStatementResult, zone: TimeZoneBox?)] = []
        for (id, statement) in statements.enumerated() {
            do throws(InfluxQueryError) {
                switch statement {
                case .select(let select):
                    let series = try InfluxSelectExecutor(store: store, catalog: try loadCatalog(), now: now).run(select)
                    results.append((id, .series(series), select.timeZone.map(TimeZoneBox.init)))
                case .show(let show) where InfluxShowExecutor.answersFromLabels(show):
                    let rows: [(measurement: String, key: String, value: String)]
                    do { rows = try store.influxTagValues(keys: InfluxShowExecutor.keys(of: show)) } catch {
                        throw InfluxQueryError("reading the store failed: \(error)")
                    }
                    results.append((id, .series(InfluxShowExecutor.tagValues(rows, show)), nil))
                case .show(let show):
                    let databases: [String]
                    do { databases = try store.influxDatabases() } catch { throw InfluxQueryError("\(error)") }
                    let series = try InfluxShowExecutor(catalog: try loadCatalog(), databases: databases, now: now).run(show)
                    results.append((id, .series(series), nil))
                case .createDatabase(let name):
                    do { try store.recordInfluxDatabase(name) } catch { throw InfluxQueryError("\(error)") }
                    results.append((id, .series([]), nil))
                case .unsupported(let words):
                    throw InfluxQueryError("\(words) is not supported by Sensei: it keeps one store and reads only")
                }
            } catch {
                results.append((id, .error(error.message), nil))
                break
            }
        }
        return results
    }
}

/// What InfluxDB 1.6 answers for a query whose statement `i` of `n` failed.
/// Its executor sends the error, then "not executed" once for each later
/// statement but the last, all under the failing statement's id; chunked,
/// each is written as it comes; otherwise a result replaces the one before
/// it with the same id, so the failing statement shows "not executed"
/// (its own error only when it is the last) and nothing follows it.
enum InfluxStatementAnswers {
    typealias Answer = (id: Int, result: InfluxStatementResult, zone: TimeZoneBox?)

    static func answers(_ results: [Answer], statements: Int, chunked: Bool) -> [Answer] {
        guard let failed = results.last, case .error = failed.result else { return results }
        let later = Swift.max(0, statements - 1 - failed.id)
        let notExecuted: Answer = (failed.id, .error("not executed"), nil)
        if chunked { return results + Array(repeating: notExecuted, count: later) }
        return later > 0 ? results.dropLast() + [notExecuted] : results
    }
}
