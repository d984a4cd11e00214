import SenseiModels
import Testing

@Suite struct SensorReferenceTests {
    @Test(arguments: [
        ("1", SensorReference.id(1)),
        ("0", .id(0)),
        ("42", .id(42)),
        ("007", .id(7)),
        ("9223372036854775807", .id(9_223_372_036_854_775_807)),
        // More digits than an Int64 holds: an id, but one that cannot exist.
        ("9223372036854775808", .id(-1)),
        ("99999999999999999999999999", .id(-1)),
        ("temperature_ext", .code("temperature_ext")),
        ("12a", .code("12a")),
        ("a12", .code("a12")),
        ("-5", .code("-5")),
        ("+5", .code("+5")),
        ("1.5", .code("1.5")),
        ("1e3", .code("1e3")),
        (" 1", .code(" 1")),
        ("1 ", .code("1 ")),
        ("", .code("")),
        ("١٢", .code("١٢")),
        ("１２", .code("１２")),
    ] as [(String, SensorReference)])
    func pathSegments(segment: String, reference: SensorReference) {
        #expect(SensorReference(pathSegment: segment) == reference)
    }

    @Test func descriptions() {
        #expect(SensorReference.id(42).description == "42")
        #expect(SensorReference.code("temperature_ext").description == "temperature_ext")
        #expect("\(SensorReference(pathSegment: "007"))" == "7")
    }

    @Test func idsAndCodesDiffer() {
        #expect(SensorReference.id(1) != .code("1"))
        #expect(Set([SensorReference.id(1), .code("1"), .id(1)]).count == 2)
    }
}
