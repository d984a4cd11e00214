import Foundation
import Testing
@testable import SenseiServer

/// `Authorization` header parsing on its own: the scheme is matched on bytes.
@Suite("Bearer token header")
struct BearerTokenTests {
    @Test(arguments: [
        ("Bearer abc", "abc"), ("bearer abc", "abc"), ("BEARER abc", "abc"), ("BeArEr abc", "abc"),
        ("  Bearer   abc \t", "abc"), ("Bearer\tabc", nil), ("Bearer ", nil), ("Bearer", nil),
        ("Bearerabc", nil), ("Basic abc", nil), ("Bearer_abc", nil), ("", nil),
        ("Bearer sensei_°C", "sensei_°C"), ("Béarer abc", nil),
    ] as [(String, String?)])
    func schemeAndToken(header: String, token: String?) {
        #expect(Authenticator.bearerToken(in: header) == token)
    }

    @Test func digestIsTheSHA256OfTheToken() {
        // sha256("abc"), FIPS 180-2 appendix B.1.
        let expected = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        #expect(TokenSecret.digest(of: "abc").map { String(format: "%02x", $0) }.joined() == expected)
    }
}
