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
        // Two blocks (FIPS 180-2 appendix B.2) and the empty string.
        let twoBlocks = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        #expect(TokenSecret.digest(of: twoBlocks).map { String(format: "%02x", $0) }.joined()
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(TokenSecret.digest(of: "").map { String(format: "%02x", $0) }.joined()
                == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }
}
