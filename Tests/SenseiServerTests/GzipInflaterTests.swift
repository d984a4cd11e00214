import Foundation
import Testing
@testable import SenseiServer

/// Gzip request bodies through zlib, compressed here by the real `gzip` tool.
@Suite("Gzip inflater")
struct GzipInflaterTests {
    /// `input` through `gzip -c` (or the shell `command` producing gzip output).
    static func gzip(_ input: [UInt8] = [], command: String = "gzip -c") throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        let writer = Thread {
            stdin.fileHandleForWriting.write(Data(input))
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Array(output)
    }

    @Test func aBodyComesBackAsSent() throws {
        let text = Array((0..<2000).map { "cpu,host=h\($0 % 7) value=\($0) \($0)000000000\n" }.joined().utf8)
        #expect(try GzipInflater.inflate(Self.gzip(text), limit: text.count) == text)
        #expect(try GzipInflater.inflate(Self.gzip([]), limit: 10) == [])
    }

    @Test func concatenatedMembersAreOneBody() throws {
        let body = try Self.gzip(Array("a v=1\n".utf8)) + Self.gzip(Array("b v=2\n".utf8))
        #expect(try GzipInflater.inflate(body, limit: 100) == Array("a v=1\nb v=2\n".utf8))
    }

    @Test func aBombStopsAtTheLimit() throws {
        // 64 MiB of zeros in about 64 KiB: refused after inflating one MiB and a byte.
        let bomb = try Self.gzip(command: "head -c 67108864 /dev/zero | gzip -c")
        #expect(bomb.count < 100_000)
        #expect(throws: GzipInflater.Failure.tooLarge(limit: 1 << 20)) {
            try GzipInflater.inflate(bomb, limit: 1 << 20)
        }
        let exact = try Self.gzip([UInt8](repeating: 7, count: 1000))
        #expect(try GzipInflater.inflate(exact, limit: 1000).count == 1000)
        #expect(throws: GzipInflater.Failure.tooLarge(limit: 999)) { try GzipInflater.inflate(exact, limit: 999) }
    }

    @Test func brokenBodiesAreRefused() throws {
        let good = try Self.gzip(Array("cpu value=1\n".utf8))
        #expect(throws: GzipInflater.Failure.corrupt("unexpected EOF")) { try GzipInflater.inflate(Array(good.dropLast(12)), limit: 100) }
        #expect(throws: GzipInflater.Failure.corrupt("unexpected EOF")) { try GzipInflater.inflate([], limit: 100) }
        #expect(throws: GzipInflater.Failure.corrupt("incorrect header check")) {
            try GzipInflater.inflate(Array("cpu value=1\n".utf8), limit: 100)
        }
        var flipped = good
        flipped[flipped.count - 6] ^= 0xFF  // the CRC
        #expect(throws: GzipInflater.Failure.corrupt("incorrect data check")) { try GzipInflater.inflate(flipped, limit: 100) }
    }
}
