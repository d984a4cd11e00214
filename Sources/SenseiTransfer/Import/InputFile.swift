import CZlib
import Foundation

/// An import file read in chunks, inflated on the way when it is gzip (by its
/// magic bytes, not its name), so a 10 GB file never sits in memory: at most
/// one chunk of the file and one of its inflated text at a time.
final class InputFile {
    let path: String
    /// The file's size on disk, and how much of it has been read: the
    /// progress bar's bytes (of the compressed file, for gzip).
    let size: Int64
    private(set) var bytesRead: Int64 = 0
    let isGzip: Bool

    private let descriptor: Int32
    private var stream = z_stream()
    private var compressed: [UInt8]
    private var compressedEnd = 0
    private var atEndOfFile = false
    private var memberEnded = false
    private static let chunk = 256 << 10

    init(path: String) throws(ImportError) {
        self.path = path
        descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .cannotOpen(path, String(cString: strerror(errno))) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR else {
            close(descriptor)
            throw .cannotOpen(path, "is a directory")
        }
        size = Int64(info.st_size)
        compressed = []
        var head: [UInt8] = [0, 0]
        let got = pread(descriptor, &head, 2, 0)
        isGzip = got == 2 && head[0] == 0x1f && head[1] == 0x8b
        if isGzip {
            compressed = [UInt8](repeating: 0, count: Self.chunk)
            guard sensei_inflate_init_gzip(&stream) == Z_OK else {
                close(descriptor)
                throw .cannotOpen(path, "cannot start zlib")
            }
        }
    }

    deinit {
        if isGzip { inflateEnd(&stream) }
        close(descriptor)
    }

    /// The file's first bytes as text (inflated for gzip), to tell its format;
    /// reads from a fresh handle, so this file's position does not move.
    static func head(of path: String, count: Int = 4096) throws(ImportError) -> [UInt8] {
        let file = try InputFile(path: path)
        var bytes = [UInt8](repeating: 0, count: count)
        let got = try bytes.withUnsafeMutableBufferPointer { buffer throws(ImportError) in try file.read(into: buffer) }
        return Array(bytes[..<got])
    }

    /// Fills `buffer` with the next text bytes; 0 only at the end of the file.
    /// A gzip file that ends mid-stream is an error, not a short file.
    func read(into buffer: UnsafeMutableBufferPointer<UInt8>) throws(ImportError) -> Int {
        guard isGzip else { return try readRaw(into: buffer) }
        var produced = 0
        while produced == 0 {
            if stream.avail_in == 0 && !atEndOfFile {
                let got = try compressed.withUnsafeMutableBufferPointer { raw throws(ImportError) in try readRaw(into: raw) }
                if got == 0 { atEndOfFile = true }
                compressedEnd = got
                stream.avail_in = UInt32(got)
            }
            if stream.avail_in == 0 && atEndOfFile {
                guard memberEnded else { throw .truncatedGzip(path, afterBytes: bytesRead) }
                return 0
            }
            let status = compressed.withUnsafeMutableBufferPointer { input in
                stream.next_in = input.baseAddress! + (compressedEnd - Int(stream.avail_in))
                stream.next_out = buffer.baseAddress! + produced
                stream.avail_out = UInt32(buffer.count - produced)
                let status = CZlib.inflate(&stream, Z_NO_FLUSH)
                produced = buffer.count - Int(stream.avail_out)
                return status
            }
            switch status {
            case Z_OK, Z_BUF_ERROR:
                memberEnded = false
            case Z_STREAM_END:
                // Concatenated members (`cat a.gz b.gz`) read as one text, as gzip -d does.
                memberEnded = true
                inflateReset(&stream)
            default:
                let reason = stream.msg.map { String(cString: $0) } ?? "invalid gzip data"
                throw .corruptGzip(path, reason)
            }
        }
        return produced
    }

    private func readRaw(into buffer: UnsafeMutableBufferPointer<UInt8>) throws(ImportError) -> Int {
        while true {
            let got = Foundation.read(descriptor, buffer.baseAddress, buffer.count)
            if got < 0 && errno == EINTR { continue }
            guard got >= 0 else { throw .cannotRead(path, String(cString: strerror(errno))) }
            bytesRead += Int64(got)
            return got
        }
    }
}
