/// The InfluxDB 1.6 peer's rows (Debian's influxd, started by bench/run.sh on
/// loopback with its defaults, measured in the same run with the same wrk
/// load), and the server's line-protocol phase against it.
extension BenchTable {
    static let singlePeerTarget = 1.5
    static let batchPeerTarget = 1.3
    static let influxPhases = ["influx_single", "influx_batch"]

    /// After the single POST rows: InfluxDB's single-point writes, and how many times that the server does.
    var influxSingleRows: [Row] {
        guard let peer = results.rate("influx_single") else { return [] }
        var rows = [
            Row(metric: "InfluxDB 1.6 single writes (peer)", value: rate(peer, "req/s")),
            Row(metric: "InfluxDB single p50 / p99", value: latencies("influx_single")),
        ]
        // run.sh stops if a phase records no figures: there is no peer without the single phase.
        if let single = results.rate("single") {
            rows += ratioRows("single POST / InfluxDB single", phases: single / peer, rounds: { $0.single / $0.influx },
                              target: "≥ 1.5×", shown: times, meets: { $0 >= Self.singlePeerTarget })
        }
        return rows
    }

    /// After the batch rows: InfluxDB's 1,000-point batches, the server's
    /// line-protocol phase (the same bodies to its /write), and both against the peer.
    var influxBatchRows: [Row] {
        let peer = results.rate("influx_batch").map { $0 * (results.number("influx_batch.items") ?? 1000) }
        let line = results.rate("line").map { $0 * (results.number("line.items") ?? 1000) }
        let batch = results.rate("batch").map { $0 * (results.number("batch.items") ?? 1000) }
        var rows: [Row] = []
        if let line {
            let ratio = peer.map { line / $0 }
            rows.append(Row(metric: "line protocol /write (1,000/req)", value: rate(line, "pt/s"),
                            target: "≥ 1,000,000", share: ratio.map { "\(times($0)) peer" } ?? "",
                            met: line >= Self.batchReadingsTarget))
            rows.append(Row(metric: "line protocol p50 / p99", value: latencies("line")))
        }
        guard let peer else { return rows }
        rows.append(Row(metric: "InfluxDB 1.6 batch (1,000/req, peer)", value: rate(peer, "pt/s")))
        rows.append(Row(metric: "InfluxDB batch p50 / p99", value: latencies("influx_batch")))
        if let line {
            rows += ratioRows("line protocol / InfluxDB batch", phases: line / peer,
                              rounds: { round in round.line.flatMap { line in round.influxBatch.map { line / $0 } } },
                              target: "≥ 1.3×", shown: times, meets: { $0 >= Self.batchPeerTarget })
        }
        if let batch {
            rows.append(Row(metric: "batch POST / InfluxDB batch", value: times(batch / peer), target: "≥ 1.3×",
                            met: batch / peer >= Self.batchPeerTarget))
        }
        return rows
    }

    /// After the disk row: InfluxDB's bytes a point for the same year, compacted.
    var influxDiskRows: [Row] {
        guard let kilobytes = results.number("influx_disk.kb"), let points = results.number("influx_disk.rows"),
              points > 0 else { return [] }
        var rows = [Row(metric: "InfluxDB disk, same year (du after stop)",
                        value: String(format: "%.2f B/point", kilobytes * 1024 / points))]
        if let own = results.number("disk.kb"), own > 0 {
            rows.append(Row(metric: "disk: InfluxDB / sensei-server", value: times(kilobytes / own)))
        }
        return rows
    }

    var influxChecks: [String] {
        var lines: [String] = []
        if let version = results.string("influx.version") { lines.append("peer: \(version), its default settings") }
        for (phase, name, unit) in [("influx_single", "InfluxDB single", 1), ("influx_batch", "InfluxDB batch", 1000),
                                    ("line", "line protocol", 1000)] {
            guard let stored = results.integer("\(phase).stored"), let requests = results.integer("\(phase).requests"),
                  let failed = results.integer("\(phase).non2xx") else { continue }
            let answered = (requests - failed) * (results.integer("\(phase).items") ?? unit)
            lines.append("\(name): \(Format.grouped(stored)) points stored, \(Format.grouped(answered)) answered 204"
                + (stored >= answered ? " (ok)" : " (MISSING POINTS)"))
        }
        if let points = results.integer("influx_disk.rows") {
            let settled = results.string("influx_disk.settled") == "1"
            lines.append("InfluxDB disk: \(Format.grouped(points)) points"
                + (settled ? ", compacted (no WAL left, TSM files steady)" : " (NOT SETTLED within 2 minutes: the figure overstates)"))
        }
        return lines
    }

    private func times(_ value: Double?) -> String {
        value.map { Format.decimal($0, places: 2) + "×" } ?? "-"
    }
}
