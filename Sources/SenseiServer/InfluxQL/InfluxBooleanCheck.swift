import SenseiModels

/// Functions InfluxDB 1.6 cannot run over a boolean field, and the error it
/// answers for each: it builds the function's iterator over the field's
/// (interruptible) iterator and finds no boolean variant, so the message
/// names Go's type. Grafana shows it as the panel's error.
enum InfluxBooleanCheck {
    /// Function → the name its message uses.
    static let labels: [String: String] = [
        "mean": "mean", "median": "median", "sum": "sum", "spread": "spread", "stddev": "stddev",
        "percentile": "percentile", "integral": "integral", "derivative": "derivative",
        "non_negative_derivative": "derivative", "difference": "difference", "non_negative_difference": "difference",
        "cumulative_sum": "cumulative sum", "moving_average": "moving average",
    ]

    /// The first column (in order, innermost call first) applying such a
    /// function to a boolean field: InfluxDB builds columns in that order.
    static func check(_ columns: [InfluxColumn], types: [String: ValueType]) throws(InfluxQueryError) {
        for column in columns {
            for call in column.expr.calls {
                var name = call.name
                var argument = call.arguments.first?.bare
                if case .call(let inner, let innerArguments)? = argument {
                    // A transformation of an aggregate: the aggregate is built first.
                    if let failure = failure(inner, innerArguments.first?.bare, types) { throw failure }
                    guard !["count", "mean", "median", "stddev", "integral", "spread", "sum"].contains(inner) else { continue }
                    name = call.name
                    argument = innerArguments.first?.bare
                }
                if let failure = failure(name, argument, types) { throw failure }
            }
        }
    }

    private static func failure(_ name: String, _ argument: InfluxExpr?, _ types: [String: ValueType]) -> InfluxQueryError? {
        guard case .reference(let field)? = argument, types[field] == .bool, let label = labels[name] else { return nil }
        return InfluxQueryError("unsupported \(label) iterator type: *query.booleanInterruptIterator")
    }
}
