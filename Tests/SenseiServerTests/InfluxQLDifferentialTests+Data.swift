import SenseiTestSupport

/// Points for issue 38's classes: several series at the same instants (the
/// order InfluxDB gives their rows), few distinct values (ties for mode()
/// and percentile()), fields missing here and there (arithmetic over two
/// fields, rows of one field only), booleans (what mean() refuses).
extension InfluxQLDifferentialTests {
    /// Two hours of three rooms read every minute at the same instants, two
    /// floors, a float `temp` in half degrees, an integer `hum` over six
    /// values and a boolean `on`. The living room skips one minute in seven,
    /// the bath's `hum` one in five: the set of series at an instant varies.
    static func climateLines() -> [String] {
        var random = SplitMix64(seed: 38)
        var lines: [String] = []
        let rooms = [("kitchen", "0"), ("living", "0"), ("bath", "1")]
        for step in Int64(0)..<120 {
            // Written in a varying order: InfluxDB's order must not come from the writes.
            for offset in 0..<3 {
                let (room, floor) = rooms[(Int(step) + offset) % 3]
                if room == "living" && step % 7 == 3 { continue }
                let temp = 18 + Double(random.next() % 12) / 2
                let hum = room == "bath" && step % 5 == 0 ? "" : ",hum=\(40 + random.next() % 6)i"
                let on = random.next() % 3 == 0 ? "true" : "false"
                lines.append("climate,floor=\(floor),room=\(room) temp=\(temp)\(hum),on=\(on) \(t0 + step * 60)")
            }
        }
        return lines
    }

    /// Two meters every two minutes for two hours: `watts` (float) and
    /// `energy` (integer), each missing at times, the other there.
    static func powerLines() -> [String] {
        var random = SplitMix64(seed: 380)
        var lines: [String] = []
        for step in Int64(0)..<60 {
            for meter in ["a", "b"] {
                var fields: [String] = []
                if step % 4 != 1 { fields.append("watts=\(Double(random.next() % 40) * 25)") }
                if step % 3 != 2 || fields.isEmpty { fields.append("energy=\(random.next() % 50)i") }
                lines.append("power,meter=\(meter) \(fields.joined(separator: ",")) \(t0 + step * 120 + (meter == "b" ? 60 : 0) * (step % 2))")
            }
        }
        return lines
    }
}
