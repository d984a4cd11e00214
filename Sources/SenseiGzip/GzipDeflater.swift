import CZlib

/// Compresses a body into one gzip member through zlib: the server's
/// responses (level 6) and `sensei import`'s batches (level 1).
///
/// The output buffer is allocated once at `deflateBound` of the input (a few
/// bytes over it at worst), and zlib's own state is fixed by its window and
/// memLevel (about 256 KiB), so a body costs at most about twice its
/// plain size while it is compressed, whatever the data.
public enum GzipDeflater {
    /// zlib's default: on JSON it is within a few per cent of level 9 at a
    /// fraction of the time.
    public static let level: Int32 = 6

    /// nil when zlib refuses (out of memory): the caller sends the body plain.
    public static func deflate(_ body: [UInt8], level: Int32 = level) -> [UInt8]? {
        var stream = z_stream()
        guard sensei_deflate_init_gzip(&stream, level) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, UInt(body.count)))
        var output = [UInt8](repeating: 0, count: bound)
        var status = Z_STREAM_ERROR
        body.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = UInt32(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = UInt32(out.count)
                // One call: the bound guarantees room for all of it.
                status = CZlib.deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { return nil }
        output.removeSubrange(Int(stream.total_out)...)
        return output
    }
}
