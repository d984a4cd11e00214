import ArgumentParser

#if canImport(Glibc)
import Glibc
#endif

extension SenseiBenchCommand {
    /// A process's resident memory from /proc/PID/status: VmRSS now, VmHWM the
    /// kernel's peak since it started. With --watch it samples VmRSS until the
    /// process ends or this one is stopped, printing each new peak on its own
    /// line, so the last line is always the peak so far.
    struct RSS: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rss", abstract: "Print a process's RSS and peak RSS (kB), or sample its peak.")

        @Option(help: "The process to measure.")
        var pid: Int32

        @Flag(help: "Sample until the process exits or SIGTERM; print `peak_rss_kb=N` at each new peak.")
        var watch = false

        @Option(name: .customLong("interval-ms"), help: "Milliseconds between samples with --watch.")
        var intervalMilliseconds = 100

        func validate() throws {
            guard pid > 0 else { throw ValidationError("--pid must be positive") }
            guard intervalMilliseconds >= 1 else { throw ValidationError("--interval-ms must be at least 1") }
        }

        func run() throws {
            guard let first = Self.memory(of: pid) else {
                throw ValidationError("no process \(pid) (cannot read /proc/\(pid)/status)")
            }
            guard watch else {
                print("rss_kb=\(first.rss) hwm_kb=\(first.hwm)")
                return
            }
            var peak = 0
            var sample: (rss: Int, hwm: Int)? = first
            while let current = sample {
                if current.rss > peak {
                    peak = current.rss
                    print("peak_rss_kb=\(peak)")
                    fflush(nil)
                }
                usleep(useconds_t(intervalMilliseconds * 1000))
                sample = Self.memory(of: pid)
            }
        }

        /// VmRSS and VmHWM in kB, nil once the process is gone.
        static func memory(of pid: Int32) -> (rss: Int, hwm: Int)? {
            guard let file = fopen("/proc/\(pid)/status", "r") else { return nil }
            defer { fclose(file) }
            var rss: Int?
            var hwm: Int?
            var line = [CChar](repeating: 0, count: 256)
            while fgets(&line, Int32(line.count), file) != nil {
                let text = String(decoding: line.prefix { $0 != 0 }.map(UInt8.init(bitPattern:)), as: UTF8.self)
                let fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
                guard fields.count >= 2 else { continue }
                if fields[0] == "VmRSS:" { rss = Int(fields[1]) }
                if fields[0] == "VmHWM:" { hwm = Int(fields[1]) }
            }
            guard let rss, let hwm else { return nil }
            return (rss, hwm)
        }
    }
}
