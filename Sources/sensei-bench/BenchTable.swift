/// The benchmark's table, from a run's results. Targets are docs/design.md's ("Targets").
struct BenchTable {
    struct Row {
        var metric: String
        var value: String
        var target = ""
        var share = ""
        /// nil: no target to meet.
        var met: Bool?
    }

    static let singleP99TargetMilliseconds = 10.0
    static let batchReadingsTarget = 1_000_000.0
    static let chartTargetMilliseconds = 20.0
    static let sensorsRateTarget = 5_000.0
    static let rssTargetKilobytes = 50 * 1024
    static let durableShareTarget = 0.85
    static let diskBytesTarget = 6.0
    static let manySensorsTargetMilliseconds = 50.0

    let results: BenchResults

    init(_ results: BenchResults) {
        self.results = results
    }

    var rows: [Row] {
        let ceiling = results.rate("hello")
        var rows: [Row] = []
        rows.append(Row(metric: "hello ceiling (GET /, 16 conns)", value: rate(ceiling, "req/s")))
        let durable = results.rate("durable")
        if durable != nil {
            rows.append(Row(metric: "durable ceiling (group fdatasync)", value: rate(durable, "req/s"),
                            share: percent(share(durable, of: ceiling))))
        }

        let single = results.rate("single")
        let singleShare = share(single, of: ceiling)
        rows.append(Row(
            metric: "single POST (durable, 16 conns)", value: rate(single, "req/s"), share: percent(singleShare)))
        if let durableShare = share(single, of: durable) {
            rows += ratioRows("single POST / durable ceiling", phases: durableShare, rounds: { $0.single / $0.durable },
                              target: "≥ 85%", shown: percent, meets: { $0 >= Self.durableShareTarget })
        }
        let singleP99 = results.latency("single", 99)
        rows.append(Row(
            metric: "single POST p50 / p99", value: latencies("single"), target: "p99 ≤ 10 ms",
            met: singleP99.map { $0 <= Self.singleP99TargetMilliseconds }))
        rows.append(contentsOf: influxSingleRows)

        let items = results.number("batch.items") ?? 1000
        let readings = results.rate("batch").map { $0 * items }
        rows.append(Row(
            metric: "batch POST (\(Format.grouped(Int(items)))/req, 16 conns)", value: rate(readings, "rd/s"),
            target: "≥ 1,000,000", met: readings.map { $0 >= Self.batchReadingsTarget }))
        rows.append(Row(metric: "batch POST p50 / p99", value: latencies("batch")))
        rows.append(contentsOf: influxBatchRows)

        let chartP99 = results.latency("year", 99)
        rows.append(Row(
            metric: "200-bucket year query p50 / p99", value: latencies("year"), target: "≤ 20 ms",
            met: chartP99.map { $0 <= Self.chartTargetMilliseconds }))
        rows.append(Row(metric: "200-bucket year query (1 conn)", value: rate(results.rate("year"), "req/s")))

        let sensors = results.rate("sensors")
        let count = results.integer("sensors.count").map(Format.grouped) ?? "?"
        rows.append(Row(
            metric: "GET /sensors (\(count) sensors, 16 conns)", value: rate(sensors, "req/s"),
            target: "≥ 5,000", share: percent(share(sensors, of: ceiling)),
            met: sensors.map { $0 >= Self.sensorsRateTarget }))

        rows.append(contentsOf: mqttRows)

        let phasePeaks = BenchTable.loadPhases.compactMap { results.integer("\($0).rss_kb") }
        let peak = phasePeaks.max()
        rows.append(Row(
            metric: "server peak RSS under load", value: megabytes(peak), target: "≤ 50 MB",
            met: peak.map { $0 <= Self.rssTargetKilobytes }))
        rows.append(Row(metric: "server peak RSS, whole run (VmHWM)", value: megabytes(results.integer("server.hwm_kb"))))

        // The second server: a year alone, packed, measured after a clean stop; then 10,000 sensors.
        if let kilobytes = results.number("disk.kb"), let readings = results.number("disk.rows"), readings > 0 {
            let perReading = kilobytes * 1024 / readings
            rows.append(Row(metric: "disk, a year packed (du after stop)", value: String(format: "%.2f B/reading", perReading),
                            target: "≤ 6", met: perReading <= Self.diskBytesTarget))
        }
        rows.append(contentsOf: influxDiskRows)
        if let milliseconds = results.number("sensors10k.ms") {
            let count = results.integer("sensors10k.count").map(Format.grouped) ?? "?"
            rows.append(Row(metric: "GET /sensors (\(count) sensors), median", value: String(format: "%.1f ms", milliseconds),
                            target: "≤ 50 ms", met: milliseconds <= Self.manySensorsTargetMilliseconds))
        }
        if let milliseconds = results.number("sensors10k.rebuilt_ms") {
            rows.append(Row(metric: "  the same right after a write (rebuilt)", value: String(format: "%.1f ms", milliseconds),
                            target: "≤ 50 ms", met: milliseconds <= Self.manySensorsTargetMilliseconds))
        }
        if let hwm = results.integer("disk.hwm_kb") {
            rows.append(Row(metric: "server VmHWM, year + 10,000 sensors", value: megabytes(hwm), target: "≤ 50 MB",
                            met: hwm <= Self.rssTargetKilobytes))
        }
        return rows
    }

    /// The phases run against `sensei-bench hello`, not the server.
    static let ceilingPhases = ["hello", "durable"]
    /// The phases run against sensei-server.
    static let loadPhases = ["single", "batch", "line", "year", "sensors", "mqtt"]
    static let phaseNames = [
        "hello": "hello ceiling", "durable": "durable ceiling", "single": "single POST", "batch": "batch POST",
        "line": "line protocol", "influx_single": "InfluxDB single", "influx_batch": "InfluxDB batch",
        "year": "year query", "sensors": "GET /sensors", "mqtt": "MQTT",
    ]

    func render() -> String {
        var lines = Self.columns(
            [["metric", "value", "target", "share", "met"]]
                + rows.map { [$0.metric, $0.value, $0.target, $0.share, $0.met.map { $0 ? "yes" : "NO" } ?? ""] })
        lines.append("")
        lines.append(contentsOf: checks())
        return lines.joined(separator: "\n")
    }

    /// Whether the load was what it claims: errors per phase, rows stored,
    /// the server still up.
    func checks() -> [String] {
        var table = [["phase", "requests", "non-2xx", "socket errors", "server RSS peak", "server CPU a request"]]
        let notServer = Self.ceilingPhases + Self.influxPhases
        for phase in notServer + Self.loadPhases where results.string("\(phase).requests") != nil {
            table.append([
                Self.phaseNames[phase] ?? phase,
                results.integer("\(phase).requests").map(Format.grouped) ?? "?",
                results.integer("\(phase).non2xx").map(Format.grouped) ?? "?",
                results.integer("\(phase).socket_errors").map(Format.grouped) ?? "?",
                notServer.contains(phase) ? "" : megabytes(results.integer("\(phase).rss_kb")),
                cpu(phase),
            ])
        }
        var lines = Self.columns(table)
        lines.append("")
        if let stored = results.integer("single.stored"), let requests = results.integer("single.requests"),
           let failed = results.integer("single.non2xx") {
            let answered = requests - failed
            lines.append("single POST: \(Format.grouped(stored)) readings stored, \(Format.grouped(answered)) answered 201"
                + (stored >= answered ? " (ok)" : " (MISSING ROWS)"))
        }
        if let stored = results.integer("batch.stored"), let requests = results.integer("batch.requests"),
           let failed = results.integer("batch.non2xx") {
            let answered = (requests - failed) * (results.integer("batch.items") ?? 1000)
            lines.append("batch POST: \(Format.grouped(stored)) readings stored, \(Format.grouped(answered)) answered 201"
                + (stored >= answered ? " (ok: new rows, not replaced ones)" : " (MISSING ROWS)"))
        }
        lines.append(contentsOf: influxChecks)
        lines.append(contentsOf: roundsChecks)
        if let rows = results.integer("year.rows") {
            lines.append("year sensor: \(Format.grouped(rows)) readings"
                + (results.integer("year.buckets").map { ", \($0) buckets a query" } ?? ""))
        }
        if let load = results.string("year.load") { lines.append("load-year: \(load)") }
        lines.append(contentsOf: mqttChecks)
        if let packed = results.integer("disk.packed"), let rows = results.integer("disk.rows") {
            lines.append("disk: \(Format.grouped(packed)) of the year's \(Format.grouped(rows)) readings packed before the stop"
                + (packed >= rows ? " (ok)" : " (NOT ALL: the figure overstates)"))
        }
        if let problems = results.integer("server.log_problems") {
            lines.append(problems == 0
                ? "server log: no warnings or errors"
                : "server log: \(Format.grouped(problems)) warning/error lines (see below)")
        }
        if let alive = results.string("server.alive") {
            lines.append(alive == "1" ? "server: still running at the end" : "server: NOT RUNNING at the end (crashed?)")
        }
        if let level = results.string("server.log_level") {
            lines.append("server log level: \(level); threads: \(results.string("server.threads") ?? "?"); "
                + "\(results.string("run.duration") ?? "?") s a phase")
        }
        if let commit = results.string("run.commit") {
            lines.append("run: \(results.string("run.date") ?? "?"), commit \(commit), "
                + "\(results.string("run.cores") ?? "?") cores, \(results.string("run.busy_percent") ?? "?")% busy just before")
        }
        if let busy = results.integer("run.busy_percent"), busy >= 20 {
            lines.append("the machine was busy before the run began: expect lower figures than on a quiet one")
        }
        return lines
    }

    private func share(_ value: Double?, of ceiling: Double?) -> Double? {
        guard let value, let ceiling, ceiling > 0 else { return nil }
        return value / ceiling
    }

    /// The CPU time the phase's server (the ceiling, the peer or
    /// sensei-server) spent a request, and how many cores that kept busy:
    /// on two cores shared with wrk, what bounds a phase that is not waiting
    /// for the disk.
    func cpu(_ phase: String) -> String {
        guard let ticks = results.number("\(phase).cpu_ticks"), let perSecond = results.number("run.clk_tck"),
              let requests = results.number("\(phase).requests"), requests > 0,
              let duration = results.number("\(phase).duration_us"), duration > 0 else { return "" }
        let seconds = ticks / perSecond
        return String(format: "%.1f µs (%.2f cores)", seconds / requests * 1e6, seconds / (duration / 1e6))
    }

    func rate(_ value: Double?, _ unit: String) -> String {
        value.map { "\(Format.grouped(Int($0.rounded()))) \(unit)" } ?? "-"
    }

    private func percent(_ value: Double?) -> String {
        value.map { "\(Int(($0 * 100).rounded()))%" } ?? ""
    }

    func latencies(_ phase: String) -> String {
        guard let p50 = results.latency(phase, 50), let p99 = results.latency(phase, 99) else { return "-" }
        return "\(Format.milliseconds(p50)) / \(Format.milliseconds(p99)) ms"
    }

    private func megabytes(_ kilobytes: Int?) -> String {
        kilobytes.map { "\(Format.decimal(Double($0) / 1024, places: 1)) MB" } ?? "-"
    }

    /// Left-aligned columns two spaces apart, trailing spaces trimmed.
    static func columns(_ table: [[String]]) -> [String] {
        var widths: [Int] = []
        for row in table {
            for (index, cell) in row.enumerated() {
                if index == widths.count { widths.append(0) }
                widths[index] = max(widths[index], cell.count)
            }
        }
        return table.map { row in
            var line = ""
            for (index, cell) in row.enumerated() {
                line += cell + String(repeating: " ", count: widths[index] - cell.count + 2)
            }
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }
    }
}
