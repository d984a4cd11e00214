import ArgumentParser
import Dispatch
import SenseiModels
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

extension SenseiBenchCommand {
    /// Fills one sensor with evenly spaced readings (by default a year at 30 s:
    /// 1,051,200) through the public API, in batches that stay under the 1 MiB
    /// body limit, over a few connections at once.
    struct LoadYear: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "load-year",
            abstract: "Load a year of 30-second readings into a sensor through POST /sensors/CODE/data.")

        @OptionGroup var server: ServerOptions

        @Option(help: "The sensor's code (created if missing).")
        var code = "year"

        @Option(help: "First reading's time (RFC 3339).")
        var from = "2023-01-01T00:00:00Z"

        @Option(help: "End of the range, exclusive (RFC 3339).")
        var to = "2024-01-01T00:00:00Z"

        @Option(help: "Seconds between readings.")
        var interval = 30

        @Option(name: .customLong("batch"), help: "Readings per request (10,000 is about 400 KB).")
        var batchSize = 10_000

        @Option(help: "Requests in flight at once, one connection each.")
        var connections = 2

        @Option(name: .customLong("line-protocol"),
                help: "Write through InfluxDB's POST /write?db=DB (line protocol, measurement CODE, field value) instead: for InfluxDB itself, or sensei-server's /write.")
        var lineProtocolDatabase: String?

        func validate() throws {
            guard SensorCode.problem(with: code) == nil else { throw ValidationError("--code: invalid sensor code") }
            guard let start = Timestamp(rfc3339: from) else { throw ValidationError("--from must be RFC 3339") }
            guard let end = Timestamp(rfc3339: to), end > start else {
                throw ValidationError("--to must be RFC 3339 and after --from")
            }
            guard interval >= 1 else { throw ValidationError("--interval must be at least 1 second") }
            guard (1...20_000).contains(batchSize) else { throw ValidationError("--batch must be from 1 to 20000") }
            guard (1...16).contains(connections) else { throw ValidationError("--connections must be from 1 to 16") }
            if let database = lineProtocolDatabase {
                guard !database.isEmpty, database.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else {
                    throw ValidationError("--line-protocol: a database name of letters, digits and _")
                }
            }
        }

        func run() throws {
            let series = YearSeries(
                start: Timestamp(rfc3339: from)!.milliseconds / 1000,
                end: Timestamp(rfc3339: to)!.milliseconds / 1000,
                interval: interval)
            let batches = (series.count + batchSize - 1) / batchSize
            let lineProtocolDatabase = lineProtocolDatabase
            let path = lineProtocolDatabase.map { "/write?db=\($0)&precision=s" } ?? "/sensors/\(code)/data"
            let code = code
            let endpoint = try server.endpoint()
            let token = server.resolvedToken ?? ""
            let batchSize = batchSize
            let progress = LoadProgress()
            let started = ContinuousClock.now

            DispatchQueue.concurrentPerform(iterations: connections) { _ in
                let client = LoopbackClient(endpoint: endpoint, token: token)
                while !progress.failed {
                    let batch = progress.next.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard batch < batches else { return }
                    let first = batch * batchSize
                    let count = min(batchSize, series.count - first)
                    do {
                        let reply = if lineProtocolDatabase != nil {
                            try client.request("POST", path, body: series.lineBody(measurement: code, from: first, count: count),
                                               contentType: "text/plain")
                        } else {
                            try client.request("POST", path, json: series.batchBody(from: first, count: count))
                        }
                        guard reply.status == (lineProtocolDatabase == nil ? 201 : 204) else {
                            throw BenchError.server("POST \(path) answered \(reply.status): \(reply.text)")
                        }
                        progress.stored.wrappingAdd(count, ordering: .relaxed)
                    } catch {
                        progress.fail(error)
                        return
                    }
                }
            }
            if let error = progress.firstError { throw error }

            let seconds = Double((ContinuousClock.now - started).components.attoseconds) / 1e18
                + Double((ContinuousClock.now - started).components.seconds)
            let stored = progress.stored.load(ordering: .relaxed)
            print("loaded \(Format.grouped(stored)) readings into \(code)\(lineProtocolDatabase.map { " (line protocol, db \($0))" } ?? "") (\(from) to \(to), every \(interval) s) "
                  + "in \(Format.decimal(seconds, places: 1)) s: \(Format.grouped(Int(Double(stored) / seconds))) readings/s")
        }
    }
}

/// Shared between the loading threads.
private final class LoadProgress: Sendable {
    let next = Atomic<Int>(0)
    let stored = Atomic<Int>(0)
    private let error = Mutex<(any Error)?>(nil)

    var failed: Bool { error.withLock { $0 != nil } }
    var firstError: (any Error)? { error.withLock { $0 } }

    func fail(_ failure: any Error) {
        error.withLock { if $0 == nil { $0 = failure } }
    }
}

/// A temperature-like series: a daily and a yearly swing plus a little
/// deterministic noise, two decimals, so the buckets have something to average.
struct YearSeries: Sendable {
    let start: Int64
    let interval: Int
    let count: Int

    init(start: Int64, end: Int64, interval: Int) {
        self.start = start
        self.interval = interval
        self.count = Int((end - start + Int64(interval) - 1) / Int64(interval))
    }

    func epochSeconds(at index: Int) -> Int64 { start + Int64(index * interval) }

    /// Hundredths of a degree.
    func centiValue(at index: Int) -> Int {
        let seconds = Double(index * interval)
        let daily = 4 * sin(seconds / 86_400 * 2 * .pi)
        let yearly = 8 * sin(seconds / 31_536_000 * 2 * .pi)
        var noise = UInt64(truncatingIfNeeded: index) &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        noise ^= noise >> 33
        return Int(((15 + daily + yearly) * 100).rounded()) + Int(noise % 41) - 20
    }

    /// `{"data":[{"timestamp":1672531200,"value":15.03},...]}` for `count` readings from `first`.
    func batchBody(from first: Int, count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * 42 + 16)
        bytes.append(contentsOf: #"{"data":["#.utf8)
        for index in first..<(first + count) {
            if index > first { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: #"{"timestamp":"#.utf8)
            bytes.append(contentsOf: String(epochSeconds(at: index)).utf8)
            bytes.append(contentsOf: #","value":"#.utf8)
            appendValue(at: index, to: &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(contentsOf: "]}".utf8)
        return bytes
    }

    /// The same readings as line protocol in seconds: `year value=15.03 1672531200`, a line each.
    func lineBody(measurement: String, from first: Int, count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * (measurement.utf8.count + 25))
        for index in first..<(first + count) {
            bytes.append(contentsOf: measurement.utf8)
            bytes.append(contentsOf: " value=".utf8)
            appendValue(at: index, to: &bytes)
            bytes.append(UInt8(ascii: " "))
            bytes.append(contentsOf: String(epochSeconds(at: index)).utf8)
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }

    /// The value with its two decimals, as both bodies write it.
    private func appendValue(at index: Int, to bytes: inout [UInt8]) {
        let centi = centiValue(at: index)
        if centi < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = abs(centi)
        bytes.append(contentsOf: String(magnitude / 100).utf8)
        bytes.append(UInt8(ascii: "."))
        bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 100 / 10))
        bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
    }
}
