import Foundation

/// Progress on stderr: a bar redrawn in place on a terminal (bytes, points,
/// rate, time left), or a plain line every few seconds otherwise, so a log
/// or a pipe gets a readable record instead of carriage returns.
package final class ImportProgress {
    let isTerminal: Bool
    private let started = ContinuousClock.now
    private var lastDrawn: ContinuousClock.Instant?
    private var drewBar = false
    private let write: (String) -> Void

    package init(isTerminal: Bool = isatty(STDERR_FILENO) == 1,
         write: @escaping (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }) {
        self.isTerminal = isTerminal
        self.write = write
    }

    func update(file: String, bytesRead: Int64, size: Int64, points: Int, force: Bool = false) {
        let now = ContinuousClock.now
        let interval: Duration = isTerminal ? .milliseconds(100) : .seconds(5)
        if !force, let lastDrawn, now - lastDrawn < interval { return }
        lastDrawn = now
        let elapsed = max(0.001, Self.seconds(now - started))
        let rate = Double(points) / elapsed
        let fraction = size > 0 ? min(1, Double(bytesRead) / Double(size)) : 0
        let bytes = "\(Self.bytes(bytesRead))/\(Self.bytes(size))"
        let rateText = "\(Self.count(Int(rate))) points/s"
        if isTerminal {
            let width = 24
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "=", count: filled) + String(repeating: " ", count: width - filled)
            let left = fraction > 0.001 ? Self.clock(elapsed / fraction - elapsed) + " left" : ""
            write("\r\u{1B}[K[\(bar)] \(Int(fraction * 100))%  \(bytes)  \(Self.count(points)) points  \(rateText)  \(left)")
            drewBar = true
        } else {
            write("sensei: import \((file as NSString).lastPathComponent): \(Int(fraction * 100))% (\(bytes)), "
                  + "\(Self.count(points)) points, \(rateText)\n")
        }
    }

    /// Clears the bar before the summary is printed.
    func finish() {
        if drewBar { write("\r\u{1B}[K") }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    package static func count(_ value: Int) -> String {
        let digits = String(value)
        var out = ""
        for (index, char) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(char)
        }
        return out
    }

    static func bytes(_ value: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var amount = Double(value)
        var unit = 0
        while amount >= 1000 && unit < units.count - 1 { amount /= 1000; unit += 1 }
        return unit == 0 ? "\(value) B" : String(format: "%.1f", amount) + " " + units[unit]
    }

    static func clock(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        return total >= 3600 ? String(format: "%d:%02d:%02d", total / 3600, total / 60 % 60, total % 60)
                             : String(format: "%d:%02d", total / 60, total % 60)
    }
}
