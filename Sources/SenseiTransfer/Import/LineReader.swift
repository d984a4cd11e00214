import Foundation

/// Hands out an `InputFile`'s text one line at a time, with its 1-based line
/// number, from a buffer that holds a few chunks at most (a line longer than
/// the buffer grows it). The trailing `\r` of a CRLF line is dropped.
final class LineReader {
    let file: InputFile
    private(set) var lineNumber = 0
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var exhausted = false
    private static let chunk = 256 << 10

    init(file: InputFile) {
        self.file = file
        buffer = [UInt8](repeating: 0, count: 2 * Self.chunk)
    }

    /// Calls `body` with the next line (valid only during the call); nil at
    /// the end of the file.
    func nextLine<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) throws -> R? {
        while true {
            if let newline = buffer.withUnsafeBufferPointer({ bytes -> Int? in
                guard end > start, let found = memchr(bytes.baseAddress! + start, 0x0a, end - start) else { return nil }
                return bytes.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
            }) {
                lineNumber += 1
                let lineStart = start
                start = newline + 1
                return try line(lineStart, newline, body)
            }
            if exhausted {
                guard start < end else { return nil }
                lineNumber += 1
                let lineStart = start
                start = end
                return try line(lineStart, end, body)
            }
            try refill()
        }
    }

    private func line<R>(_ from: Int, _ to: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try buffer.withUnsafeBufferPointer { bytes in
            var to = to
            if to > from && bytes[to - 1] == UInt8(ascii: "\r") { to -= 1 }
            return try body(UnsafeBufferPointer(rebasing: bytes[from..<to]))
        }
    }

    /// Moves what is left to the front and reads more after it.
    private func refill() throws(ImportError) {
        if start > 0 {
            buffer.withUnsafeMutableBufferPointer { bytes in
                let left = end - start
                if left > 0 { bytes.baseAddress!.update(from: bytes.baseAddress! + start, count: left) }
            }
            end -= start
            start = 0
        }
        if buffer.count - end < Self.chunk { buffer += [UInt8](repeating: 0, count: buffer.count) }
        let got = try buffer.withUnsafeMutableBufferPointer { bytes throws(ImportError) in
            try file.read(into: UnsafeMutableBufferPointer(rebasing: bytes[end...]))
        }
        if got == 0 { exhausted = true }
        end += got
    }
}
