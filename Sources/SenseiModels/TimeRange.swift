/// The chart ranges of the dashboard, each a span ending now (or everything).
public enum TimeRange: String, Sendable, CaseIterable {
    case hour
    case day
    case week
    case month
    case year
    case all

    /// The span in milliseconds; nil for `all`.
    public var milliseconds: Int64? {
        switch self {
        case .hour: 3_600_000
        case .day: 86_400_000
        case .week: 7 * 86_400_000
        case .month: 30 * 86_400_000
        case .year: 365 * 86_400_000
        case .all: nil
        }
    }

    public var title: String {
        switch self {
        case .hour: "1 hour"
        case .day: "24 hours"
        case .week: "7 days"
        case .month: "30 days"
        case .year: "365 days"
        case .all: "all time"
        }
    }
}
