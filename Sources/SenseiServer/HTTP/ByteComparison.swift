#if canImport(Glibc)
import Glibc
#endif

/// Byte comparisons for the paths that run on every request or line
/// (routing, the credential, response headers, line-protocol keys), where
/// comparing `String`s or walking `elementsEqual` byte by byte cost more than
/// the work around them.

/// Whether two runs of bytes are equal: `memcmp`, where `elementsEqual` walks
/// an iterator a byte at a time (it was a tenth of a line-protocol point's parse).
func sameBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    guard let first = a.baseAddress, let second = b.baseAddress else { return true }
    return memcmp(first, second, a.count) == 0
}

/// Whether `bytes` are `lowercase` in any case: ASCII letters fold, every
/// other byte must match exactly. For header names and auth schemes, which
/// HTTP compares without case, without making a lowercased copy.
func sameIgnoringCase(_ bytes: some Collection<UInt8>, _ lowercase: StaticString) -> Bool {
    guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
    return lowercase.withUTF8Buffer { wanted in
        zip(bytes, wanted).allSatisfy { byte, wanted in
            (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte) == wanted
        }
    }
}
