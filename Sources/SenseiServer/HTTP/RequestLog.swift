import Logging

#if canImport(Glibc)
import Glibc
#endif

/// The request log: a line at info level for each answered request,
/// `request=7 POST /sensors/a/data 201 0.41ms`.
///
/// At the default level there is a line a request, so where the log thread's
/// queue is known (`serve`), a line is queued as its parts and formatted on
/// that thread (`LogWriter.Entry(time:label:request:)`). Made as a swift-log
/// message (string interpolation, a metadata dictionary, the handler's
/// merge), it cost the worker 8,400 instructions a request (callgrind, single
/// POSTs), more than routing did. Elsewhere (tests, the bench's hello
/// server), lines go through the logger, word for word the same.
struct RequestLog: Sendable {
    private let logger: Logger
    /// The queue behind `logger`'s handler, when it is a `BufferedLogHandler`.
    /// Lines queued there carry the logger's label and level, not metadata
    /// set on the logger itself (`serve` sets none).
    private let writer: LogWriter?
    /// Whether lines are kept at the logger's level.
    let isOn: Bool

    init(logger: Logger, writer: LogWriter? = nil) {
        self.logger = logger
        self.writer = writer
        isOn = logger.logLevel <= .info
    }

    func record(_ line: RequestLine) {
        guard isOn else { return }
        guard let writer else {
            var message: [UInt8] = []
            line.appendMessage(to: &message)
            logger.info("\(String(decoding: message, as: UTF8.self))", metadata: ["request": "\(line.id)"])
            return
        }
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        writer.append(LogWriter.Entry(time: now, label: logger.label, request: line))
    }
}

/// What a request log line says of a request.
struct RequestLine: Sendable {
    let id: UInt64
    let method: String
    let path: String
    let status: Int
    let elapsedNanoseconds: UInt64

    /// `POST /sensors/a/data 201 0.41ms`: the time in milliseconds to the
    /// hundredth, trailing zeros dropped, as `formatNumber` writes it.
    func appendMessage(to text: inout [UInt8]) {
        Self.appendWord(method, to: &text)
        text.append(UInt8(ascii: " "))
        Self.appendWord(path, to: &text)
        text.append(UInt8(ascii: " "))
        Self.appendDecimal(UInt64(clamping: status), to: &text)
        text.append(UInt8(ascii: " "))
        let hundredths = elapsedNanoseconds / 10_000
        Self.appendDecimal(hundredths / 100, to: &text)
        let fraction = hundredths % 100
        if fraction != 0 {
            text.append(UInt8(ascii: "."))
            text.append(UInt8(ascii: "0") + UInt8(fraction / 10))
            if fraction % 10 != 0 { text.append(UInt8(ascii: "0") + UInt8(fraction % 10)) }
        }
        text.append(contentsOf: "ms".utf8)
    }

    /// The method or path as one word: spaces and control characters (which
    /// a client sends as `%20`, `%0A` and the like, and the server decodes)
    /// are written back as `%XX`, so a path cannot end the line early or
    /// forge another, and the line still splits into its four fields.
    static func appendWord(_ word: String, to text: inout [UInt8]) {
        for byte in word.utf8 {
            if byte > 0x20 && byte != 0x7F {
                text.append(byte)
            } else {
                text.append(UInt8(ascii: "%"))
                text.append(hexDigit(byte >> 4))
                text.append(hexDigit(byte & 0xF))
            }
        }
    }

    /// `appendWord` as a string, for other log lines that name a request.
    static func word(_ word: String) -> String {
        var text: [UInt8] = []
        appendWord(word, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
    }

    static func appendDecimal(_ value: UInt64, to text: inout [UInt8]) {
        var divisor: UInt64 = 1
        while value / divisor >= 10 { divisor *= 10 }
        while divisor > 0 {
            text.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }
}
