import SenseiModels
import Testing

@Suite struct JSONValueTests {
    private let document = JSONValue.object([
        "s": .string("text"), "n": .number(2.5), "i": .number(3), "b": .bool(true), "z": .null,
        "a": .array([.number(1), .string("two")]), "o": .object(["k": .bool(false)]),
    ])

    @Test func subscripts() {
        #expect(document["s"] == .string("text"))
        #expect(document["o"]?["k"] == .bool(false))
        #expect(document["missing"] == nil)
        #expect(document["a"]?[1] == .string("two"))
        #expect(document["a"]?[2] == nil)
        #expect(document["a"]?[-1] == nil)
        #expect(document[0] == nil)
        #expect(JSONValue.string("s")["s"] == nil)
        #expect(JSONValue.array([.null])[0] == .null)
    }

    @Test func typedAccessors() {
        #expect(document["s"]?.stringValue == "text")
        #expect(document["n"]?.stringValue == nil)
        #expect(document["n"]?.doubleValue == 2.5)
        #expect(document["s"]?.doubleValue == nil)
        #expect(document["b"]?.boolValue == true)
        #expect(document["i"]?.boolValue == nil)
        #expect(document["a"]?.arrayValue == [.number(1), .string("two")])
        #expect(document["o"]?.arrayValue == nil)
        #expect(document["o"]?.objectValue == ["k": .bool(false)])
        #expect(document["a"]?.objectValue == nil)
        #expect(document["z"]?.isNull == true)
        #expect(document["b"]?.isNull == false)
    }

    @Test(arguments: [
        (JSONValue.number(3), 3 as Int?),
        (.number(-3), -3),
        (.number(0), 0),
        (.number(-0.0), 0),
        (.number(9_007_199_254_740_991), 9_007_199_254_740_991),
        (.number(-9_007_199_254_740_991), -9_007_199_254_740_991),
        (.number(9_007_199_254_740_992), nil),
        (.number(1e300), nil),
        (.number(3.5), nil),
        (.number(-0.5), nil),
        (.number(.infinity), nil),
        (.number(.nan), nil),
        (.string("3"), nil),
        (.bool(true), nil),
        (.null, nil),
    ] as [(JSONValue, Int?)])
    func intValue(value: JSONValue, expected: Int?) {
        #expect(value.intValue == expected)
    }

    @Test(arguments: [
        (JSONValue.null, "null"), (.bool(false), "a boolean"), (.number(1), "a number"),
        (.string(""), "a string"), (.array([]), "an array"), (.object([:]), "an object"),
    ] as [(JSONValue, String)])
    func typeNames(value: JSONValue, name: String) {
        #expect(value.typeName == name)
    }

    @Test(arguments: [
        (JSONValue.null, "null"), (.bool(true), "true"), (.number(1e12), "1000000000000"),
        (.number(-0.5), "-0.5"), (.string("a\"b"), #""a\"b""#), (.array([.number(1), .null]), "[1,null]"),
        (.object(["b": .null, "a": .array([])]), #"{"a":[],"b":null}"#),
    ] as [(JSONValue, String)])
    func serialized(value: JSONValue, text: String) {
        #expect(value.serialized == text)
    }
}
