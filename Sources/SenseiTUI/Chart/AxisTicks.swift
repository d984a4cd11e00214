/// Y-axis ticks at round numbers: steps of 1, 2 or 5 × 10ⁿ, the bounds
/// widened to whole steps ("loose" labelling, Heckbert's nice numbers), so the
/// top and bottom of the plot carry labels and every label is short.
public struct AxisTicks: Hashable, Sendable {
    /// The axis bounds: the first and last tick.
    public let lower: Double
    public let upper: Double
    public let step: Double
    public let values: [Double]
    public let labels: [String]

    /// Ticks covering [min, max], no more than `maxCount` (at least 3: a
    /// range around zero needs a tick below, at and above it) of them.
    /// A flat series (min == max) gets a small band around its value.
    public init(min: Double, max: Double, maxCount: Int) {
        var low = Swift.min(min, max), high = Swift.max(min, max)
        if !low.isFinite || !high.isFinite { (low, high) = (0, 1) }
        if low == high {
            if low == 0 {
                (low, high) = (-1, 1)
            } else {
                let pad = Format.pow10(Int(abs(low).log10Floor)) / 10
                (low, high) = (low - pad, high + pad)
            }
        }
        let limit = Swift.max(3, maxCount)
        var exponent = Int(((high - low) / Double(limit)).log10Floor) - 1
        var choice: (mantissa: Int, exponent: Int, first: Int, last: Int)?
        while choice == nil {
            for mantissa in [1, 2, 5] {
                let step = Self.step(mantissa, exponent)
                // Tolerances so 2.9999999 / 0.1 does not add a needless tick.
                let first = Int((low / step + 1e-9).rounded(.down))
                let last = Int((high / step - 1e-9).rounded(.up))
                if last - first + 1 <= limit {
                    choice = (mantissa, exponent, first, last)
                    break
                }
            }
            exponent += 1
        }
        let (mantissa, chosenExponent, first, last) = choice!
        step = Self.step(mantissa, chosenExponent)
        // i × mantissa / 10ⁿ rather than i × step: 3 × 0.1 is 0.30000000000000004.
        values = (first...last).map { Self.step($0 * mantissa, chosenExponent) }
        lower = values.first!
        upper = values.last!
        labels = Self.labels(values, stepExponent: chosenExponent)
    }

    private static func step(_ mantissa: Int, _ exponent: Int) -> Double {
        exponent >= 0 ? Double(mantissa) * Format.pow10(exponent) : Double(mantissa) / Format.pow10(-exponent)
    }

    /// Compact labels sharing one style: plain (`0.25`, `-5`, `1000`), with a
    /// suffix from 10 000 up (`20k`, `1.5M`), with an exponent for tiny steps
    /// and huge values (`1.2e-6`). No needless decimals: `0`, `0.5`, `1`.
    static func labels(_ values: [Double], stepExponent: Int) -> [String] {
        let largest = values.map(abs).max() ?? 0
        if largest >= 1e15 || (stepExponent < -4 && largest < 1e-2) {
            let exponent = Int(largest.log10Floor)
            let decimals = Swift.max(0, exponent - stepExponent)
            return values.map { value in
                value == 0 ? "0" : Format.trimmed(Format.fixed(value / Format.pow10(exponent), decimals: decimals))
                    + "e" + String(exponent)
            }
        }
        let suffixes: [(String, Int)] = [("T", 12), ("G", 9), ("M", 6), ("k", 3)]
        if largest >= 1e4, let (suffix, unit) = suffixes.first(where: { largest >= Format.pow10($0.1) }) {
            let decimals = Swift.max(0, unit - stepExponent)
            return values.map {
                $0 == 0 ? "0" : Format.trimmed(Format.fixed($0 / Format.pow10(unit), decimals: decimals)) + suffix
            }
        }
        let decimals = Swift.max(0, -stepExponent)
        return values.map { Format.trimmed(Format.fixed($0, decimals: decimals)) }
    }

    /// The widest label, for sizing the axis.
    public var labelWidth: Int { labels.map(\.count).max() ?? 0 }
}
