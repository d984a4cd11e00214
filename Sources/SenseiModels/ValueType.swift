/// What a sensor measures: any number, whole numbers, or on/off.
public enum ValueType: String, Sendable, CaseIterable {
    case float
    case int
    case bool

    /// Why `value` does not fit this type, or nil when it does.
    public func problem(with value: Double) -> String? {
        switch self {
        case .float:
            nil
        case .int:
            value.rounded() == value ? nil : "\(formatNumber(value)) is not a whole number"
        case .bool:
            value == 0 || value == 1 ? nil : "\(formatNumber(value)) is not a boolean (0 or 1)"
        }
    }
}
