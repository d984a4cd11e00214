import SenseiModels
import Testing

/// The one trimmer: spaces, tabs, CR and LF at either end, `\r\n` included
/// (one Character in Swift, equal to neither `\r` nor `\n`).
@Suite struct WhitespaceTests {
    @Test(arguments: [
        ("ON\r\n", "ON"), ("21.5\r\n", "21.5"), ("\r\n 22 \t", "22"), (" \n", ""), ("", ""),
        ("a b", "a b"), ("\t{\"t\":1}\r\n", "{\"t\":1}"), ("é\r\n", "é"), ("\r\n\r\n", ""),
    ])
    func trimsBothEnds(_ text: String, _ trimmed: String) {
        #expect(text.trimmingWhitespace() == trimmed)
        #expect(text[...].trimmingWhitespace() == trimmed)
    }

    @Test func keepsOtherSpaceInside() {
        #expect("\u{00A0}21\u{00A0}".trimmingWhitespace() == "\u{00A0}21\u{00A0}")
        #expect(" x\r\ny ".trimmingWhitespace() == "x\r\ny")
    }
}
