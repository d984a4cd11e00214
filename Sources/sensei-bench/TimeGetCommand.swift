import ArgumentParser

extension SenseiBenchCommand {
    /// Times one GET, asked again and again over one keep-alive connection
    /// (no connect, no process start in the figure): what bench/usage.sh
    /// reads a query's latency with.
    struct TimeGet: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "time-get",
            abstract: "Time GET PATH over loopback: prints the median, the p95 and the body size.",
            discussion: "Output: one line, `median_ms p95_ms bytes`. Every answer must be 200.")

        @OptionGroup var server: ServerOptions

        @Argument(help: "The path and query, e.g. /sensors/year/usage?interval=day.")
        var path: String

        @Option(help: "Timed requests.")
        var runs = 50

        @Option(help: "Requests first, not timed (caches warm).")
        var warmup = 3

        func validate() throws {
            guard path.hasPrefix("/") else { throw ValidationError("PATH must start with /") }
            guard (1...100_000).contains(runs) else { throw ValidationError("--runs must be from 1 to 100000") }
            guard (0...1_000).contains(warmup) else { throw ValidationError("--warmup must be from 0 to 1000") }
        }

        func run() throws {
            let client = try server.client()
            var bytes = 0
            var milliseconds: [Double] = []
            for index in 0..<(warmup + runs) {
                let started = ContinuousClock.now
                let reply = try client.request("GET", path)
                let elapsed = (ContinuousClock.now - started).components
                guard reply.status == 200 else { throw BenchError.server("GET \(path) answered \(reply.status): \(reply.text)") }
                bytes = reply.body.count
                if index >= warmup {
                    milliseconds.append(Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15)
                }
            }
            milliseconds.sort()
            // Nearest rank: the smallest time that at least p % of the runs took no longer than.
            func percentile(_ p: Double) -> Double {
                milliseconds[max(0, Int((p / 100 * Double(milliseconds.count)).rounded(.up)) - 1)]
            }
            print("\(Format.decimal(percentile(50), places: 3)) \(Format.decimal(percentile(95), places: 3)) \(bytes)")
        }
    }
}
