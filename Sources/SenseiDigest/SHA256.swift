import CLibCrypto

/// SHA-256 from the system's libcrypto (Debian's OpenSSL), so no copy of a
/// TLS library is compiled into Sensei for one hash function: token digests
/// (every request) and the short hashes in generated sensor codes.
public enum SHA256 {
    /// The 32-byte digest of `bytes`.
    public static func hash(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: Int(SHA256_DIGEST_LENGTH)) { digest, count in
            _ = CLibCrypto.SHA256(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count,
                                  digest.baseAddress)
            count = Int(SHA256_DIGEST_LENGTH)
        }
    }

    /// The digest of a string's UTF-8 bytes.
    public static func hash(_ text: String) -> [UInt8] {
        var text = text
        return text.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
    }
}
