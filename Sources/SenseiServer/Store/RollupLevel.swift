import SenseiModels

/// The rollup tables of schema.sql, coarsest first.
enum RollupLevel: CaseIterable {
    case hour
    case minute

    var table: String {
        switch self {
        case .hour: "rollups_hour"
        case .minute: "rollups_minute"
        }
    }

    /// Milliseconds a row covers.
    var width: Int64 {
        switch self {
        case .hour: 3_600_000
        case .minute: 60_000
        }
    }

    /// The first millisecond of the row holding `ts`; floor division, so
    /// instants before 1970 land in the right minute too.
    func start(of ts: Int64) -> Int64 {
        ts.alignedDown(to: width)
    }
}
