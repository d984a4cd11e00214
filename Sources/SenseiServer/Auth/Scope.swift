/// What a token may do. Each scope includes the ones before it.
public enum Scope: String, Sendable, CaseIterable, Comparable {
    /// GET routes.
    case read
    /// read, plus posting readings (which may create a sensor).
    case write
    /// everything: sensor metadata and deletion too.
    case admin

    private var rank: Int {
        switch self {
        case .read: 0
        case .write: 1
        case .admin: 2
        }
    }

    public static func < (lhs: Scope, rhs: Scope) -> Bool { lhs.rank < rhs.rank }

    public func allows(_ required: Scope) -> Bool { self >= required }
}
