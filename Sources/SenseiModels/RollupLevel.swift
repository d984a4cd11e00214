/// The rollup granularities the server keeps and the dashboard's cache
/// copies (`GET /sensors/<id>/aggregates?level=`): a minute and an hour,
/// aligned on the epoch in UTC. The raw value is what the cache stores.
public enum RollupLevel: Int, CaseIterable, Sendable, Comparable {
    case minute = 0
    case hour = 1

    /// Coarsest first: the order a query reads them in, whole rows of the
    /// coarser level before the finer ones at its ragged edges.
    public static let coarsestFirst: [RollupLevel] = [.hour, .minute]

    /// Milliseconds a row covers.
    public var width: Int64 {
        switch self {
        case .minute: 60_000
        case .hour: 3_600_000
        }
    }

    /// The level's name in the API.
    public var name: String {
        switch self {
        case .minute: "minute"
        case .hour: "hour"
        }
    }

    public init?(name: String) {
        guard let level = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = level
    }

    /// The next finer level; nil below a minute (the readings themselves).
    public var finer: RollupLevel? { RollupLevel(rawValue: rawValue - 1) }

    /// The first millisecond of the row holding `ts`; floor division, so
    /// instants before 1970 land in the right row too.
    public func start(of ts: Int64) -> Int64 {
        ts.alignedDown(to: width)
    }

    /// The coarsest level whose rows are at most `span` wide; nil when even a
    /// minute is wider.
    public static func coarsest(atMost span: Int64) -> RollupLevel? {
        coarsestFirst.first { $0.width <= span }
    }

    public static func < (lhs: RollupLevel, rhs: RollupLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}
