import SenseiModels

extension RollupLevel {
    /// The level's table in schema.sql.
    var table: String {
        switch self {
        case .hour: "rollups_hour"
        case .minute: "rollups_minute"
        }
    }
}
