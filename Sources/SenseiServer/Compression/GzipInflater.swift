import CZlib

/// Decompresses a gzip (or zlib) request body through zlib, with a bound on
/// the output: inflation stops the moment the output would pass `limit`, so a
/// gzip bomb (a few KiB that expand to gigabytes) costs at most `limit` bytes
/// and the time to produce them.
enum GzipInflater {
    enum Failure: Error, Equatable {
        /// The decompressed body would pass the limit (413).
        case tooLarge(limit: Int)
        /// Not gzip, truncated, or a bad checksum (400), with zlib's reason.
        case corrupt(String)
    }

    static func inflate(_ compressed: [UInt8], limit: Int) throws(Failure) -> [UInt8] {
        var stream = z_stream()
        guard sensei_inflate_init_gzip(&stream) == Z_OK else { throw .corrupt("cannot start zlib") }
        defer { inflateEnd(&stream) }
        // Grown as needed, never past limit + 1 (one byte over proves "too large").
        var output = [UInt8](repeating: 0, count: min(limit + 1, max(compressed.count * 4, 4096)))
        var produced = 0
        var status = Z_OK
        compressed.withUnsafeBufferPointer { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = UInt32(input.count)
            while status == Z_OK {
                if produced == output.count {
                    guard output.count <= limit else { break }
                    // A whole array, not an element sequence: one memset and memcpy in any build.
                    output += [UInt8](repeating: 0, count: min(output.count, limit + 1 - output.count))
                }
                output.withUnsafeMutableBufferPointer { buffer in
                    stream.next_out = buffer.baseAddress! + produced
                    stream.avail_out = UInt32(buffer.count - produced)
                    status = CZlib.inflate(&stream, Z_NO_FLUSH)
                    produced = buffer.count - Int(stream.avail_out)
                }
                // Concatenated gzip members (`cat a.gz b.gz`) are one body, as Go reads them.
                if status == Z_STREAM_END && stream.avail_in > 0 && produced <= limit {
                    status = inflateReset(&stream)
                }
                if status == Z_BUF_ERROR && stream.avail_out > 0 { break }
                if status == Z_BUF_ERROR { status = Z_OK }
            }
        }
        if produced > limit { throw .tooLarge(limit: limit) }
        switch status {
        case Z_STREAM_END:
            output.removeSubrange(produced...)
            return output
        case Z_BUF_ERROR:
            throw .corrupt("unexpected EOF")
        default:
            throw .corrupt(stream.msg.map { String(cString: $0) } ?? "invalid gzip data")
        }
    }
}
