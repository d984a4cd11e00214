/// The writes taken in alternation (bench/run.sh's rounds): in each round the
/// durable ceiling, InfluxDB and sensei-server take the same single writes,
/// then InfluxDB and sensei-server the same line-protocol batches, within
/// seconds of each other, so the machine's drift between phases minutes apart
/// (the peer moved by half between runs of one day) does not decide the
/// ratio. The targets against the ceiling and the peer use the median of the
/// rounds' ratios.
extension BenchTable {
    struct Round {
        let number: Int
        let durable: Double
        let influx: Double
        let single: Double
        /// Line-protocol batches of 1,000 points: InfluxDB's and sensei-server's
        /// requests a second (nil in a run from before they were alternated).
        let influxBatch: Double?
        let line: Double?
    }

    var rounds: [Round] {
        guard let count = results.integer("rounds.count"), count > 0 else { return [] }
        return (1...count).compactMap { number in
            guard let durable = results.rate("round_durable_\(number)"), let influx = results.rate("round_influx_\(number)"),
                  let single = results.rate("round_single_\(number)"), durable > 0, influx > 0 else { return nil }
            return Round(number: number, durable: durable, influx: influx, single: single,
                         influxBatch: results.rate("round_influx_batch_\(number)"), line: results.rate("round_line_\(number)"))
        }
    }

    /// The median of a ratio over the rounds that have it; nil without any.
    func roundsMedian(_ ratio: (Round) -> Double?) -> Double? {
        let ratios = rounds.compactMap(ratio).sorted()
        guard !ratios.isEmpty else { return nil }
        let middle = ratios.count / 2
        return ratios.count % 2 == 1 ? ratios[middle] : (ratios[middle - 1] + ratios[middle]) / 2
    }

    /// A ratio against the ceiling or the peer: the phases' own, and below it
    /// the rounds' median, which then carries the target (`meets`).
    func ratioRows(_ metric: String, phases: Double, rounds ratio: (Round) -> Double?, target: String,
                   shown: (Double?) -> String, meets: (Double) -> Bool) -> [Row] {
        guard let alternated = roundsMedian(ratio) else {
            return [Row(metric: metric, value: shown(phases), target: target, met: meets(phases))]
        }
        return [Row(metric: metric, value: shown(phases)),
                Row(metric: "  in alternation, median of \(rounds.count)", value: shown(alternated), target: target,
                    met: meets(alternated))]
    }

    /// Each round's rates (with each server's CPU a request), and its ratios.
    var roundsChecks: [String] {
        rounds.flatMap { round in
            var lines = [
                "round \(round.number): durable ceiling \(measured(round.durable, "round_durable_\(round.number)")), "
                    + "InfluxDB \(measured(round.influx, "round_influx_\(round.number)")), "
                    + "sensei-server \(measured(round.single, "round_single_\(round.number)")): "
                    + "\(Int((round.single / round.durable * 100).rounded()))% of the ceiling, "
                    + Format.decimal(round.single / round.influx, places: 2) + "× InfluxDB",
            ]
            if let influxBatch = round.influxBatch, let line = round.line, influxBatch > 0 {
                lines.append("  line protocol, 1,000 points a request: InfluxDB "
                    + "\(measured(influxBatch * 1000, "round_influx_batch_\(round.number)", unit: "pt/s")), "
                    + "sensei-server \(measured(line * 1000, "round_line_\(round.number)", unit: "pt/s")): "
                    + Format.decimal(line / influxBatch, places: 2) + "×")
            }
            return lines
        }
    }

    private func measured(_ value: Double, _ phase: String, unit: String = "req/s") -> String {
        let cpu = cpu(phase)
        return rate(value, unit) + (cpu.isEmpty ? "" : " at \(cpu)")
    }
}
