import Glibc
import Logging
import SenseiModels
import Testing
@testable import SenseiServer

/// The server's log lines as `LogWriter` writes them: UTC with milliseconds,
/// the level second, then the label, the metadata in key order and the message.
@Suite("Log lines")
struct LogLineTests {
    static func line(seconds: Int, nanoseconds: Int, _ level: Logger.Level, _ metadata: Logger.Metadata,
                     _ message: String) -> String {
        var text: [UInt8] = []
        LogWriter.format(LogWriter.Entry(time: timespec(tv_sec: seconds, tv_nsec: nanoseconds), level: level,
                                         label: "sensei-server", message: message, metadata: metadata), into: &text)
        return String(decoding: text, as: UTF8.self)
    }

    @Test func aRequestLine() {
        #expect(Self.line(seconds: 1_736_424_000, nanoseconds: 7_000_000, .info, ["request": "7"], "POST /sensors/a/data 201 0.41ms")
            == "2025-01-09T12:00:00.007Z info sensei-server : request=7 POST /sensors/a/data 201 0.41ms\n")
    }

    /// A request line queued as its parts (`RequestLog` under `serve`) reads
    /// as the one the logger writes elsewhere, its time as `formatNumber`
    /// writes the milliseconds to the hundredth.
    @Test(arguments: [UInt64(0), 4_100_000, 4_109_999, 1_500_000, 2_000_000, 10_050_000, 12_345_678_901, 999_990_000])
    func aQueuedRequestLineReadsAsTheLoggedOne(elapsed: UInt64) {
        let request = RequestLine(id: 7, method: "POST", path: "/sensors/a/data", status: 201, elapsedNanoseconds: elapsed)
        let time = timespec(tv_sec: 1_736_424_000, tv_nsec: 7_000_000)
        var queued: [UInt8] = []
        LogWriter.format(LogWriter.Entry(time: time, label: "sensei-server", request: request), into: &queued)
        let milliseconds = formatNumber(Double(elapsed / 10_000) / 100)
        #expect(String(decoding: queued, as: UTF8.self)
            == Self.line(seconds: 1_736_424_000, nanoseconds: 7_000_000, .info, ["request": "7"],
                         "POST /sensors/a/data 201 \(milliseconds)ms"))
    }

    /// A path the client percent-encoded with a newline, a space or a control
    /// character stays one line of four fields: those are written as `%XX`.
    @Test func aRequestLineCannotForgeAnother() {
        let request = RequestLine(id: 9, method: "GET", path: "/sensors\ninfo sensei-server : forged\r\u{7F}\t/é",
                                  status: 404, elapsedNanoseconds: 120_000)
        var text: [UInt8] = []
        LogWriter.format(LogWriter.Entry(time: timespec(tv_sec: 0, tv_nsec: 0), label: "sensei-server", request: request),
                         into: &text)
        let line = String(decoding: text, as: UTF8.self)
        #expect(line == "1970-01-01T00:00:00.000Z info sensei-server : request=9 "
            + "GET /sensors%0Ainfo%20sensei-server%20:%20forged%0D%7F%09/é 404 0.12ms\n")
        #expect(line.split(separator: "\n").count == 1)
    }

    /// Whatever a message or a metadata value quotes (an error's SQL, a
    /// device's MQTT topic), an entry is one line.
    @Test func controlCharactersStayOnTheLine() {
        #expect(Self.line(seconds: 0, nanoseconds: 0, .debug, ["topic": "a\nb"], "dropped on a\nb\r\tc\u{1}\u{7F}: é")
            == #"1970-01-01T00:00:00.000Z debug sensei-server : topic=a\nb dropped on a\nb\r\tc\x01\x7f: é"# + "\n")
    }

    /// One clock across lines, as a flush formats them: the date made for one
    /// second must not leak into the next.
    @Test func linesAcrossSecondsAndDays() {
        var text: [UInt8] = []
        var clock = LineClock()
        for (seconds, nanoseconds) in [(1_736_467_199, 998_000_000), (1_736_467_199, 999_000_000), (1_736_467_200, 0)] {
            LogWriter.format(LogWriter.Entry(time: timespec(tv_sec: seconds, tv_nsec: nanoseconds), level: .info,
                                             label: "l", message: "m", metadata: [:]), into: &text, clock: &clock)
        }
        #expect(String(decoding: text, as: UTF8.self) == """
            2025-01-09T23:59:59.998Z info l : m
            2025-01-09T23:59:59.999Z info l : m
            2025-01-10T00:00:00.000Z info l : m

            """)
    }

    @Test func metadataInKeyOrderAndOtherValues() {
        #expect(Self.line(seconds: 951_782_400, nanoseconds: 999_999_999, .warning,
                          ["z": "last", "a": .stringConvertible(42), "m": ["x", "y"]], "leap day")
            == "2000-02-29T00:00:00.999Z warning sensei-server : a=42 m=[\"x\", \"y\"] z=last leap day\n")
        #expect(Self.line(seconds: 0, nanoseconds: 0, .critical, [:], "epoch")
            == "1970-01-01T00:00:00.000Z critical sensei-server : epoch\n")
    }
}
