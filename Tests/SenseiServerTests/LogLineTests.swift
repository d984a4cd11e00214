import Glibc
import Logging
import Testing
@testable import SenseiServer

/// The server's log lines as `LogWriter` writes them: UTC with milliseconds,
/// the level second, then the label, the metadata in key order and the message.
@Suite("Log lines")
struct LogLineTests {
    static func line(seconds: Int, nanoseconds: Int, _ level: Logger.Level, _ metadata: Logger.Metadata,
                     _ message: String) -> String {
        var text = ""
        LogWriter.format(LogWriter.Entry(time: timespec(tv_sec: seconds, tv_nsec: nanoseconds), level: level,
                                         label: "sensei-server", message: message, metadata: metadata), into: &text)
        return text
    }

    @Test func aRequestLine() {
        #expect(Self.line(seconds: 1_736_424_000, nanoseconds: 7_000_000, .info, ["request": "7"], "POST /sensors/a/data 201 0.41ms")
            == "2025-01-09T12:00:00.007Z info sensei-server : request=7 POST /sensors/a/data 201 0.41ms\n")
    }

    @Test func metadataInKeyOrderAndOtherValues() {
        #expect(Self.line(seconds: 951_782_400, nanoseconds: 999_999_999, .warning,
                          ["z": "last", "a": .stringConvertible(42), "m": ["x", "y"]], "leap day")
            == "2000-02-29T00:00:00.999Z warning sensei-server : a=42 m=[\"x\", \"y\"] z=last leap day\n")
        #expect(Self.line(seconds: 0, nanoseconds: 0, .critical, [:], "epoch")
            == "1970-01-01T00:00:00.000Z critical sensei-server : epoch\n")
    }
}
