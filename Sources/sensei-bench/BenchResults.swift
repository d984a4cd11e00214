#if canImport(Glibc)
import Glibc
#endif

/// What bench/run.sh gathered, as `phase.key=value` lines: wrk's figures from
/// bench/report.lua (`rps`, `p50_us`, `p99_us`, `requests`, `non2xx`,
/// `socket_errors`), the server's peak RSS during each phase (`rss_kb`) and
/// the checks it made (`stored`, `alive`, ...).
struct BenchResults {
    private(set) var values: [String: String] = [:]

    init(values: [String: String]) {
        self.values = values
    }

    init(contentsOf path: String) throws(BenchError) {
        guard let file = fopen(path, "r") else { throw .io("cannot read \(path)") }
        defer { fclose(file) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0, let line {
            let text = String(cString: line).split(separator: "\n").first.map(String.init) ?? ""
            guard let equals = text.firstIndex(of: "=") else { continue }
            values[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
    }

    func string(_ key: String) -> String? { values[key] }

    func number(_ key: String) -> Double? { values[key].flatMap(Double.init) }

    func integer(_ key: String) -> Int? { number(key).map { Int($0) } }

    /// Requests per second of a phase.
    func rate(_ phase: String) -> Double? { number("\(phase).rps") }

    /// A latency percentile of a phase, in milliseconds.
    func latency(_ phase: String, _ percentile: Int) -> Double? {
        number("\(phase).p\(percentile)_us").map { $0 / 1000 }
    }
}
