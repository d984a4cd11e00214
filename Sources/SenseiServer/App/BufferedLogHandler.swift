import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A swift-log handler that never writes on the caller's thread: a line is
/// queued (an append under a lock) and `LogWriter` formats and writes the
/// queue to stderr in one `write` every `interval`, or at once for a notice
/// or worse. swift-log's `StreamLogHandler` formatted a local time and wrote
/// and flushed stderr inside every call: at the default level, a syscall on
/// every request's path (its answer waits for the line), and a stall
/// whenever the terminal or journal behind stderr is slow.
///
/// The request log stays whole unless stderr cannot keep up at all: past
/// `LogWriter.capacity` queued lines, further lines are counted, not kept,
/// and the count is logged once the queue drains.
struct BufferedLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]
    let writer: LogWriter

    init(label: String, level: Logger.Level, writer: LogWriter = .standardError) {
        self.label = label
        self.logLevel = level
        self.writer = writer
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(level: Logger.Level, message: Logger.Message, metadata explicit: Logger.Metadata?,
             source: String, file: String, function: String, line: UInt) {
        var merged = metadata
        if let explicit {
            if merged.isEmpty { merged = explicit } else { merged.merge(explicit) { $1 } }
        }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        writer.append(LogWriter.Entry(time: now, level: level, label: label, message: message.description,
                                      metadata: merged))
    }
}

/// The queue behind `BufferedLogHandler`, and the thread that empties it.
final class LogWriter: Sendable {
    static let standardError = LogWriter(fileDescriptor: 2)
    static let capacity = 20_000
    static let interval: TimeInterval = 0.05

    struct Entry: Sendable {
        let time: timespec
        let level: Logger.Level
        let label: String
        let text: Text

        enum Text: Sendable {
            case message(String, metadata: Logger.Metadata)
            /// A request log line, formatted only here (`RequestLog`).
            case request(RequestLine)
        }

        init(time: timespec, level: Logger.Level, label: String, message: String, metadata: Logger.Metadata) {
            self.time = time
            self.level = level
            self.label = label
            text = .message(message, metadata: metadata)
        }

        init(time: timespec, label: String, request: RequestLine) {
            self.time = time
            level = .info
            self.label = label
            text = .request(request)
        }
    }

    private struct Queue {
        var entries: [Entry] = []
        var dropped = 0
        var started = false
    }

    private let fileDescriptor: Int32
    private let queue = Mutex(Queue())
    /// Held while a batch is taken and written, so batches keep their order.
    private let writing = Mutex(())
    private let worker = WorkerThread(name: "sensei-log")

    init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    func append(_ entry: Entry) {
        let first = queue.withLock { queue in
            if queue.entries.count >= Self.capacity {
                queue.dropped += 1
            } else {
                queue.entries.append(entry)
            }
            defer { queue.started = true }
            return !queue.started
        }
        // Started by the first line; it writes for the rest of the process.
        if first {
            worker.start { [self] _ in
                flush()
                return Self.interval
            }
        }
        if entry.level >= .notice { worker.wake() }
    }

    /// Writes everything queued so far before returning: before the process
    /// exits, and by tests.
    func flush() {
        writing.withLock { _ in
            let (entries, dropped) = queue.withLock { queue in
                defer {
                    queue.entries.removeAll(keepingCapacity: true)
                    queue.dropped = 0
                }
                return (queue.entries, queue.dropped)
            }
            guard !entries.isEmpty || dropped > 0 else { return }
            var text: [UInt8] = []
            text.reserveCapacity(entries.count * 112)
            var clock = LineClock()
            for entry in entries { Self.format(entry, into: &text, clock: &clock) }
            if dropped > 0 {
                var now = timespec()
                clock_gettime(CLOCK_REALTIME, &now)
                Self.format(Entry(time: now, level: .warning, label: "sensei-server",
                                  message: "\(dropped) log lines dropped: stderr did not keep up", metadata: [:]),
                            into: &text, clock: &clock)
            }
            writeAll(text)
        }
    }

    private func writeAll(_ text: [UInt8]) {
        text.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(fileDescriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return // stderr is gone: nothing to tell
                }
            }
        }
    }

    /// `2025-01-09T12:00:00.123Z info sensei-server : request=7 POST /… 201 0.41ms`,
    /// as StreamLogHandler's lines but in UTC with milliseconds: the level is
    /// the second word, which tools (and bench/run.sh) filter on. Bytes
    /// appended by hand, the date and time made once a second (`LineClock`):
    /// at the default level there is a line per request, and `String(format:)`
    /// and enum interpolation cost the log thread 50,300 instructions a line,
    /// more than the request it described (now about 2,100, callgrind).
    static func format(_ entry: Entry, into text: inout [UInt8]) {
        var clock = LineClock()
        format(entry, into: &text, clock: &clock)
    }

    static func format(_ entry: Entry, into text: inout [UInt8], clock: inout LineClock) {
        clock.stamp(entry.time, into: &text)
        text.append(UInt8(ascii: " "))
        text.append(contentsOf: entry.level.rawValue.utf8)
        text.append(UInt8(ascii: " "))
        text.append(contentsOf: entry.label.utf8)
        text.append(contentsOf: " :".utf8)
        switch entry.text {
        case .message(let message, let metadata):
            if metadata.count == 1, let (key, value) = metadata.first {
                append(key, value, to: &text)
            } else {
                for (key, value) in metadata.sorted(by: { $0.key < $1.key }) { append(key, value, to: &text) }
            }
            text.append(UInt8(ascii: " "))
            appendOneLine(message, to: &text)
        case .request(let line):
            text.append(contentsOf: " request=".utf8)
            RequestLine.appendDecimal(line.id, to: &text)
            text.append(UInt8(ascii: " "))
            line.appendMessage(to: &text)
        }
        text.append(UInt8(ascii: "\n"))
    }

    private static func append(_ key: String, _ value: Logger.MetadataValue, to text: inout [UInt8]) {
        text.append(UInt8(ascii: " "))
        text.append(contentsOf: key.utf8)
        text.append(UInt8(ascii: "="))
        if case .string(let string) = value {
            appendOneLine(string, to: &text)
        } else {
            appendOneLine(value.description, to: &text)
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// `value` with its control characters written as `\n`, `\r`, `\t` or
    /// `\xHH`: an entry is one line whatever it quotes (an error's SQL, a
    /// device's MQTT topic), so none can end a line early or forge another.
    private static func appendOneLine(_ value: String, to text: inout [UInt8]) {
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\n"): text.append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): text.append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): text.append(contentsOf: #"\t"#.utf8)
            case 0..<0x20, 0x7F:
                text.append(contentsOf: #"\x"#.utf8)
                text.append(hexDigits[Int(byte >> 4)])
                text.append(hexDigits[Int(byte & 0xF)])
            default: text.append(byte)
            }
        }
    }
}

/// A line's UTC time, `2025-01-09T12:00:00.123Z`: the date and time to the
/// second are made when the second changes, not for every line.
struct LineClock {
    private var second = Int.min
    private var prefix: [UInt8] = []

    mutating func stamp(_ time: timespec, into text: inout [UInt8]) {
        if time.tv_sec != second {
            second = time.tv_sec
            var seconds = time.tv_sec
            var parts = tm()
            gmtime_r(&seconds, &parts)
            prefix.removeAll(keepingCapacity: true)
            Self.digits(parts.tm_year + 1900, 4, into: &prefix); prefix.append(UInt8(ascii: "-"))
            Self.digits(parts.tm_mon + 1, 2, into: &prefix); prefix.append(UInt8(ascii: "-"))
            Self.digits(parts.tm_mday, 2, into: &prefix); prefix.append(UInt8(ascii: "T"))
            Self.digits(parts.tm_hour, 2, into: &prefix); prefix.append(UInt8(ascii: ":"))
            Self.digits(parts.tm_min, 2, into: &prefix); prefix.append(UInt8(ascii: ":"))
            Self.digits(parts.tm_sec, 2, into: &prefix); prefix.append(UInt8(ascii: "."))
        }
        text.append(contentsOf: prefix)
        Self.digits(Int32(time.tv_nsec / 1_000_000), 3, into: &text)
        text.append(UInt8(ascii: "Z"))
    }

    /// `value` in `count` decimal digits, zero-padded.
    private static func digits(_ value: Int32, _ count: Int, into text: inout [UInt8]) {
        var divisor: Int32 = 1
        for _ in 1..<count { divisor *= 10 }
        while divisor > 0 {
            text.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }
}
