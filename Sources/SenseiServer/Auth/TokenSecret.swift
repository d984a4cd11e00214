import Foundation
import SenseiDigest

/// Bearer token secrets: how they are made and how they are stored.
public enum TokenSecret {
    /// A new random token: `sensei_` and 192 bits in base64url.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<24).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let encoded = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
        return "sensei_" + encoded
    }

    /// What the database keeps instead of the token: its SHA-256. Tokens are
    /// random and long, so a fast hash is enough, and lookups by digest need
    /// no secret-dependent comparison.
    public static func digest(of token: String) -> [UInt8] {
        SHA256.hash(token)
    }
}
