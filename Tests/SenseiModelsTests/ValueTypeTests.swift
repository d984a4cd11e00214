import SenseiModels
import Testing

@Suite struct ValueTypeTests {
    @Test func wireNames() {
        #expect(ValueType.allCases == [.float, .int, .bool])
        #expect(ValueType.allCases.map(\.rawValue) == ["float", "int", "bool"])
        #expect(ValueType(rawValue: "float") == .float)
        #expect(ValueType(rawValue: "int") == .int)
        #expect(ValueType(rawValue: "bool") == .bool)
        #expect(ValueType(rawValue: "double") == nil)
        #expect(ValueType(rawValue: "Float") == nil)
        #expect(ValueType(rawValue: "boolean") == nil)
        #expect(ValueType(rawValue: "") == nil)
    }

    @Test(arguments: [0, 1, -1, 23.5, -0.125, 1e300, -1e-300, .leastNonzeroMagnitude])
    func floatTakesAnyNumber(value: Double) {
        #expect(ValueType.float.problem(with: value) == nil)
    }

    @Test(arguments: [0, -0.0, 1, -3, 42, 1_736_424_000, 1e20, -9_007_199_254_740_992])
    func intTakesWholeNumbers(value: Double) {
        #expect(ValueType.int.problem(with: value) == nil)
    }

    @Test(arguments: [
        (2.5, "2.5 is not a whole number"), (-0.5, "-0.5 is not a whole number"),
        (0.1, "0.1 is not a whole number"), (1e-7, "1e-07 is not a whole number"),
        (1_736_424_000.5, "1736424000.5 is not a whole number"),
    ] as [(Double, String)])
    func intRefusesFractions(value: Double, message: String) {
        #expect(ValueType.int.problem(with: value) == message)
    }

    @Test(arguments: [0, 1, -0.0])
    func boolTakesZeroAndOne(value: Double) {
        #expect(ValueType.bool.problem(with: value) == nil)
    }

    @Test(arguments: [
        (2, "2 is not a boolean (0 or 1)"), (-1, "-1 is not a boolean (0 or 1)"),
        (0.5, "0.5 is not a boolean (0 or 1)"), (1.0000001, "1.0000001 is not a boolean (0 or 1)"),
    ] as [(Double, String)])
    func boolRefusesOtherNumbers(value: Double, message: String) {
        #expect(ValueType.bool.problem(with: value) == message)
    }
}
