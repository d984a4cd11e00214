import Testing
import SenseiModels
@testable import SenseiTUI
@testable import SenseiClient

@Suite("The sensor filter: name, code or label value; label selectors")
struct SensorFilterTests {
    static func sensor(_ code: String, _ name: String, _ labels: [String: String] = [:]) -> Sensor {
        Sensor(id: 1, code: code, name: name, units: "", valueType: .float, createdAt: Fixture.now,
               updatedAt: Fixture.now, latest: nil, count: 0, labels: labels)
    }

    static let kitchen = sensor("kitchen_temp", "Kitchen temperature", ["room": "kitchen", "source": "mqtt"])
    static let porch = sensor("porch", "Porch", ["room": "Outside", "device": "porch-node"])
    static let plug = sensor("garage_power", "Garage power", ["device": "plug-1"])

    static func matching(_ filter: SensorFilter) -> [String] {
        [kitchen, porch, plug].filter(filter.matches).map(\.code)
    }

    @Test func textMatchesNameCodeOrALabelValueIgnoringCase() {
        #expect(Self.matching(SensorFilter(text: "KITCHEN")) == ["kitchen_temp"])
        #expect(Self.matching(SensorFilter(text: "power")) == ["garage_power"])
        #expect(Self.matching(SensorFilter(text: "_temp")) == ["kitchen_temp"])
        #expect(Self.matching(SensorFilter(text: "outside")) == ["porch"])
        #expect(Self.matching(SensorFilter(text: "node")) == ["porch"])
        #expect(Self.matching(SensorFilter(text: "zzz")) == [])
        #expect(Self.matching(SensorFilter()) == ["kitchen_temp", "porch", "garage_power"])
        // A label key is not a value: "room" names no sensor.
        #expect(Self.matching(SensorFilter(text: "room")) == [])
    }

    @Test func labelSelectorsMatchExactlyAndAllMustHold() {
        let room = { (value: String) in SensorFilter.LabelSelector(key: "room", value: value) }
        #expect(Self.matching(SensorFilter(labels: [room("kitchen")])) == ["kitchen_temp"])
        #expect(Self.matching(SensorFilter(labels: [room("outside")])) == [])
        #expect(Self.matching(SensorFilter(labels: [room("kitchen"), .init(key: "source", value: "mqtt")])) == ["kitchen_temp"])
        #expect(Self.matching(SensorFilter(labels: [room("kitchen"), .init(key: "source", value: "influx")])) == [])
        #expect(Self.matching(SensorFilter(text: "garage", labels: [room("kitchen")])) == [])
    }

    @Test func selectorsParseAtTheFirstColon() {
        #expect(SensorFilter.LabelSelector("room:kitchen") == .init(key: "room", value: "kitchen"))
        #expect(SensorFilter.LabelSelector("topic:a:b") == .init(key: "topic", value: "a:b"))
        #expect(SensorFilter.LabelSelector("room:") == .init(key: "room", value: ""))
        #expect(SensorFilter.LabelSelector("room") == nil)
        #expect(SensorFilter.LabelSelector(":kitchen") == nil)
    }
}
