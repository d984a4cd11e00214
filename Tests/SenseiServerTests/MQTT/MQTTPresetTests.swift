import Testing
@testable import SenseiServer
import SenseiModels

/// The presets' mapping, on each ecosystem's real topics and payloads (as
/// their firmware publishes them), without a broker: (topic, payload,
/// retained) in, points out.
@Suite struct MQTTPresetTests {
    let all = MQTTMessageMapper(presets: MQTTPreset.allCases, topicFilters: ["home/+/+"])

    private func points(_ topic: String, _ payload: String, retained: Bool = false) -> [MQTTPoint] {
        guard case .points(let points) = all.map(topic: topic, payload: Array(payload.utf8), retained: retained)
        else { return [] }
        return points
    }

    private func outcome(_ topic: String, _ payload: [UInt8], retained: Bool = false) -> MQTTOutcome {
        all.map(topic: topic, payload: payload, retained: retained)
    }

    @Test func esphomeSensorAndBinarySensorStates() {
        #expect(points("porch-node/sensor/temperature/state", "21.5") == [
            MQTTPoint(topic: "porch-node/sensor/temperature/state", device: "porch-node", field: "temperature",
                      value: 21.5, valueType: .float),
        ])
        #expect(points("porch-node/binary_sensor/motion/state", "ON").map(\.value) == [1])
        #expect(points("porch-node/binary_sensor/motion/state", "OFF").first?.valueType == .bool)
        // ESPHome publishes `nan` while a sensor has no value.
        #expect(outcome("porch-node/sensor/temperature/state", Array("nan".utf8)) == .dropped(.notFinite))
        // Its own status and text sensors are not readings.
        #expect(outcome("porch-node/status", Array("online".utf8)) == .ignored)
    }

    @Test func tasmotaSensorJSONWithTempUnit() {
        let found = points("tele/tasmota_A1B2C3/SENSOR",
                           #"{"Time":"2024-01-09T12:00:00","AM2301":{"Temperature":20.9,"Humidity":42.5,"DewPoint":7.5},"TempUnit":"C"}"#)
        #expect(found.map(\.field) == ["AM2301.DewPoint", "AM2301.Humidity", "AM2301.Temperature"])
        #expect(found.map(\.units) == ["°C", "%", "°C"])
        #expect(found.allSatisfy { $0.device == "tasmota_A1B2C3" && $0.topic == "tele/tasmota_A1B2C3/SENSOR" })
        let fahrenheit = points("tele/attic/SENSOR", #"{"Time":"2024-01-09T12:00:00","DS18B20":{"Id":"0316A27996D7","Temperature":71.6},"TempUnit":"F"}"#)
        #expect(fahrenheit.map(\.field) == ["DS18B20.Temperature"])
        #expect(fahrenheit.first?.units == "°F")
        let energy = points("tele/plug/SENSOR", #"{"Time":"2019-06-09T15:34:46","ENERGY":{"TotalStartTime":"2019-06-07T19:57:17","Total":0.041,"Yesterday":0.012,"Today":0.029,"Period":0,"Power":12,"ApparentPower":14,"ReactivePower":5,"Factor":0.86,"Voltage":231,"Current":0.061}}"#)
        #expect(energy.first { $0.field == "ENERGY.Power" }?.units == "W")
        #expect(energy.first { $0.field == "ENERGY.Total" }?.value == 0.041)
        #expect(energy.count == 10)
    }

    @Test func zigbee2mqttDevicesAndSkippedTopics() {
        let found = points("zigbee2mqtt/Living room/climate",
                           #"{"battery":100,"humidity":58.3,"linkquality":120,"pressure":1012.5,"temperature":21.23,"voltage":3055,"last_seen":1704801600000,"update":{"state":"idle","installed_version":8704}}"#)
        #expect(found.map(\.field) == ["battery", "humidity", "linkquality", "pressure", "temperature", "voltage"])
        #expect(found.allSatisfy { $0.device == "Living room/climate" })
        #expect(found.first { $0.field == "temperature" }?.units == "°C")
        let plug = points("zigbee2mqtt/kitchen_plug", #"{"state":"ON","power":41.2,"child_lock":"UNLOCK"}"#)
        #expect(plug.map(\.field) == ["power", "state"])
        #expect(plug.last?.valueType == .bool)
        for topic in ["zigbee2mqtt/bridge/state", "zigbee2mqtt/bridge/devices", "zigbee2mqtt/kitchen_plug/availability",
                      "zigbee2mqtt/kitchen_plug/set", "zigbee2mqtt/kitchen_plug/get", "zigbee2mqtt/kitchen_plug/set/state"] {
            #expect(outcome(topic, Array(#"{"state":"online","power":1}"#.utf8)) == .ignored, "\(topic)")
        }
    }

    @Test func shellyGen2StatusComponents() {
        let found = points("shellyplus1pm-441793d69718/status/switch:0",
                           #"{"id":0,"source":"timer","output":true,"apower":8.9,"voltage":237.5,"current":0.068,"aenergy":{"total":6.532,"by_minute":[45.199,47.141,88.397],"minute_ts":1654511100},"temperature":{"tC":36.4,"tF":97.5}}"#)
        #expect(found.map(\.field) == ["switch:0.aenergy.total", "switch:0.apower", "switch:0.current", "switch:0.output",
                                       "switch:0.temperature.tC", "switch:0.temperature.tF", "switch:0.voltage"])
        #expect(found.map(\.units) == ["Wh", "W", "A", nil, "°C", "°F", "V"])
        #expect(found.allSatisfy { $0.device == "shellyplus1pm-441793d69718" })
        let ht = points("shellyhtg3-84fce63ad204/status/temperature:0", #"{"id":0,"tC":21.6,"tF":70.9}"#)
        #expect(ht.map(\.field) == ["temperature:0.tC", "temperature:0.tF"])
    }

    @Test func homeAssistantDiscoveryNamesAndUnits() {
        // ESPHome's discovery, abbreviated keys, for a plain state topic.
        let esphome = #"{"dev_cla":"temperature","unit_of_meas":"°C","stat_cla":"measurement","name":"Porch temperature","stat_t":"porch-node/sensor/temperature/state","avty_t":"porch-node/status","uniq_id":"ESPsensortemperature","dev":{"ids":"a4cf12b3c4d5","name":"porch-node","sw":"esphome v2024.2.0"}}"#
        #expect(outcome("homeassistant/sensor/porch-node/temperature/config", Array(esphome.utf8), retained: true)
            == .discovery(.init(stateTopic: "porch-node/sensor/temperature/state", field: nil,
                                name: "Porch temperature", units: "°C", kind: .gauge)))
        let point = points("porch-node/sensor/temperature/state", "21.5").first
        #expect(point?.name == "Porch temperature")
        #expect(point?.units == "°C")
        // Zigbee2MQTT's, full keys, naming a JSON key through its value template.
        let zigbee = #"{"name":"Humidity","unit_of_measurement":"%rH","state_topic":"zigbee2mqtt/bedroom","value_template":"{{ value_json.humidity }}","device_class":"humidity"}"#
        _ = outcome("homeassistant/sensor/0x00158d0001dc126a/humidity/config", Array(zigbee.utf8), retained: true)
        let bedroom = points("zigbee2mqtt/bedroom", #"{"humidity":50,"temperature":20}"#)
        #expect(bedroom.first { $0.field == "humidity" }?.units == "%rH")
        #expect(bedroom.first { $0.field == "humidity" }?.name == "Humidity")
        #expect(bedroom.first { $0.field == "temperature" }?.name == nil)
        // Tasmota's, with `~` and a bracketed template.
        #expect(HomeAssistantDiscovery.entry(from: [
            "~": .string("tele/tasmota_A1B2C3/"), "stat_t": .string("~SENSOR"),
            "val_tpl": .string("{{value_json['AM2301']['Temperature']}}"), "unit_of_meas": .string("°C"),
        ])?.field == "AM2301.Temperature")
        #expect(HomeAssistantDiscovery.keyPath(ofTemplate: "{{ value_json.temperature | float | round(1) }}") == "temperature")
        #expect(HomeAssistantDiscovery.keyPath(ofTemplate: "{{ value }}") == nil)
        #expect(HomeAssistantDiscovery.keyPath(ofTemplate: "{{ value_json.a + value_json.b }}") == nil)
    }

    /// Each ecosystem's energy total is a counter; its other values say nothing (gauges).
    @Test func energyTotalsAreCounters() {
        let tasmota = points("tele/plug/SENSOR", #"{"Time":"2019-06-09T15:34:46","ENERGY":{"TotalStartTime":"2019-06-07T19:57:17","Total":0.041,"Yesterday":0.012,"Today":0.029,"Power":12,"Voltage":231}}"#)
        #expect(tasmota.filter { $0.kind == .counter }.map(\.field) == ["ENERGY.Total"])
        #expect(tasmota.filter { $0.kind == nil }.map(\.field) == ["ENERGY.Power", "ENERGY.Today", "ENERGY.Voltage", "ENERGY.Yesterday"])
        // Only under ENERGY: another sensor's `Total` is no energy meter.
        #expect(points("tele/rain/SENSOR", #"{"RG-15":{"Total":3.2}}"#).first?.kind == nil)
        let shelly = points("shellypro3em-0cb815fc1234/status/switch:1",
                            #"{"id":1,"apower":8.9,"aenergy":{"total":6.532,"by_minute":[1,2,3],"minute_ts":1654511100},"ret_aenergy":{"total":0.5}}"#)
        #expect(shelly.filter { $0.kind == .counter }.map(\.field) == ["switch:1.aenergy.total", "switch:1.ret_aenergy.total"])
        #expect(shelly.first { $0.field == "switch:1.apower" }?.kind == nil)
        #expect(points("energy-node/sensor/total_daily_energy/state", "1.25").first?.kind == .counter)
        #expect(points("energy-node/sensor/daily_energy_total/state", "1.25").first?.kind == nil)
        // Zigbee2MQTT and generic topics say nothing of kinds.
        #expect(points("zigbee2mqtt/plug", #"{"energy":1.5,"power":3}"#).allSatisfy { $0.kind == nil })
        #expect(points("home/grid/total", "12").first?.kind == nil)
    }

    /// A discovery config's `state_class`, full or abbreviated, over the preset's guess.
    @Test func homeAssistantStateClassesGiveKinds() {
        for (stateClass, kind) in [("total_increasing", SensorKind.counter), ("total", .counter), ("measurement", .gauge)] {
            #expect(HomeAssistantDiscovery.entry(from: ["stat_t": .string("a/b"), "stat_cla": .string(stateClass)])?.kind == kind)
            #expect(HomeAssistantDiscovery.entry(from: ["state_topic": .string("a/b"), "state_class": .string(stateClass)])?.kind == kind)
        }
        #expect(HomeAssistantDiscovery.entry(from: ["stat_t": .string("a/b")])?.kind == nil)
        #expect(HomeAssistantDiscovery.entry(from: ["stat_t": .string("a/b"), "stat_cla": .string("future_class")])?.kind == nil)
        let mapper = MQTTMessageMapper(presets: MQTTPreset.allCases, topicFilters: ["home/+/+"])
        let config = #"{"stat_t":"tele/meter/SENSOR","val_tpl":"{{ value_json.ENERGY.Total }}","stat_cla":"measurement"}"#
        _ = mapper.map(topic: "homeassistant/sensor/meter/total/config", payload: Array(config.utf8), retained: true)
        guard case .points(let found) = mapper.map(topic: "tele/meter/SENSOR", payload: Array(#"{"ENERGY":{"Total":1}}"#.utf8),
                                                   retained: false) else {
            Issue.record("no points")
            return
        }
        #expect(found.map(\.kind) == [.gauge])
    }

    @Test func genericTopics() {
        #expect(points("home/garage/temperature", "12.5") == [
            MQTTPoint(topic: "home/garage/temperature", device: "garage", field: "temperature", value: 12.5,
                      valueType: .float),
        ])
        #expect(points("home/garage/door", "true").first?.valueType == .bool)
        #expect(points("home/garage/door", "off").first?.value == 0)
        let nested = points("home/garage/climate", #"{"air":{"temperature":12.5,"ok":true},"label":"x","list":[1,2]}"#)
        #expect(nested.map(\.field) == ["air.ok", "air.temperature"])
        #expect(nested.allSatisfy { $0.device == "garage" })
        // Not a filter's: nothing.
        #expect(outcome("office/temperature", Array("20".utf8)) == .ignored)
    }

    @Test func retainedMessagesAreNoReadings() {
        #expect(outcome("porch-node/sensor/temperature/state", Array("21.5".utf8), retained: true) == .dropped(.retained))
        #expect(outcome("home/garage/temperature", Array("21.5".utf8), retained: true) == .dropped(.retained))
        #expect(outcome("zigbee2mqtt/bridge/state", Array("online".utf8), retained: true) == .ignored)
    }

    @Test func badPayloadsAreDroppedWithTheirReason() {
        let esphome = "porch-node/sensor/temperature/state", tasmota = "tele/plug/SENSOR"
        #expect(outcome(esphome, Array("warm".utf8)) == .dropped(.notANumber))
        #expect(outcome(esphome, []) == .dropped(.notANumber))
        #expect(outcome(esphome, Array("1e999".utf8)) == .dropped(.notFinite))
        #expect(outcome(esphome, Array("-inf".utf8)) == .dropped(.notFinite))
        #expect(outcome(esphome, [0x32, 0xFF, 0xFE]) == .dropped(.invalidUTF8))
        #expect(outcome(esphome, Array(repeating: 0x31, count: MQTTPayload.maximumBytes + 1)) == .dropped(.tooLarge))
        #expect(outcome(esphome, Array(#"{"a":1}"#.utf8)) == .dropped(.notANumber))
        #expect(outcome(tasmota, Array(#"{"ENERGY":{"Power":1"#.utf8)) == .dropped(.invalidJSON))
        #expect(outcome(tasmota, Array("12".utf8)) == .dropped(.notANumber))
        #expect(outcome(tasmota, Array(#"{"Time":"x","TempUnit":"C"}"#.utf8)) == .dropped(.notANumber))
        let wide = "{" + (0...MQTTPayload.maximumLeaves).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + "}"
        #expect(outcome(tasmota, Array(wide.utf8)) == .dropped(.tooLarge))
        let deep = String(repeating: "{\"a\":", count: 100) + "1" + String(repeating: "}", count: 100)
        #expect(outcome(tasmota, Array(deep.utf8)) == .dropped(.invalidJSON))
        let longName = "home/" + String(repeating: "x", count: 300) + "/t"
        #expect(outcome(longName, Array("1".utf8)) == .dropped(.invalidLabels))
    }

    @Test func preferredCodesAreValidSensorCodes() {
        let point = MQTTPoint(topic: "t", device: "Living room / climate", field: "switch:0.apower", value: 1,
                              valueType: .float)
        #expect(point.preferredCode == "Living_room_climate_switch_0_apower")
        #expect(SensorCode.isValid(MQTTPoint(topic: "t", device: String(repeating: "é", count: 80), field: "x",
                                             value: 1, valueType: .float).preferredCode))
    }
}
