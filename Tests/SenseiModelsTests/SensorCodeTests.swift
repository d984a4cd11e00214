import SenseiModels
import Testing

private let fiftyCharacters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWX"

@Suite struct SensorCodeTests {
    @Test func fiftyCharactersIsTheLimit() {
        #expect(fiftyCharacters.count == 50)
        #expect(SensorCode.maximumLength == 50)
        #expect(SensorCode.isValid(fiftyCharacters))
        #expect(SensorCode.problem(with: fiftyCharacters) == nil)
        #expect(!SensorCode.isValid(fiftyCharacters + "Y"))
        #expect(SensorCode.problem(with: fiftyCharacters + "Y") == "sensor code is longer than 50 characters")
        #expect(!SensorCode.isValid(String(repeating: "a", count: 1_000)))
    }

    @Test(arguments: [
        "a", "Z", "0", "_", "-", "temperature_ext", "Living-Room_2", "CO2", "123", "0123456789",
        "abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "--__--", "a-b_c-D",
    ])
    func validCodes(code: String) {
        #expect(SensorCode.isValid(code))
        #expect(SensorCode.problem(with: code) == nil)
    }

    @Test(arguments: [
        "temp ext", " temp", "temp ", "temp.ext", "temp/ext", "temp\\ext", "temp:ext", "a+b", "%20", "..", "a?b",
        "a#b", "a&b", "a=b", "a\"b", "a'b", "a\u{0}", "a\n", "a\t", "temp~", "a@b", "a,b", "(a)",
        "température", "温度", "😀", "ａ", "e\u{301}", "Ω",
    ])
    func forbiddenCharacters(code: String) {
        #expect(!SensorCode.isValid(code))
        #expect(SensorCode.problem(with: code) == "sensor code '\(code)' may only hold letters, digits, '_' and '-'")
    }

    @Test func emptyCode() {
        #expect(!SensorCode.isValid(""))
        #expect(SensorCode.problem(with: "") == "sensor code is empty")
    }

    /// Non-ASCII letters never pass, even when the code is short in characters.
    @Test func nonASCIIIsCountedAndRefused() {
        let accented = String(repeating: "é", count: 25)
        #expect(!SensorCode.isValid(accented))
        #expect(SensorCode.problem(with: accented) != nil)
        #expect(!SensorCode.isValid("caf\u{E9}"))
        #expect(!SensorCode.isValid("cafe\u{301}"))
    }

    @Test(arguments: [
        ("temperature_ext", "Temperature ext"),
        ("living-room_temp", "Living room temp"),
        ("CO2", "CO2"),
        ("a", "A"),
        ("x_", "X "),
        ("_x", " x"),
        ("1st_floor", "1st floor"),
        ("", ""),
    ] as [(String, String)])
    func defaultNames(code: String, name: String) {
        #expect(SensorCode.defaultName(for: code) == name)
    }
}
