import GRDB
import SenseiModels

extension Aggregate {
    /// Columns `count`, `sum`, `min` and `max`, as the rollup tables name them.
    init(row: Row) {
        self.init(count: row["count"], sum: row["sum"], min: row["min"], max: row["max"])
    }
}
