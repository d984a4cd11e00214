import Foundation
import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

/// The subscriber against a real Mosquitto broker: each ecosystem's payloads
/// published with `mosquitto_pub`, the sensors read back through the REST API
/// by their labels.
@Suite struct MQTTIngestTests {
    @Test func eachEcosystemBecomesLabelledSensors() async throws {
        try await withBroker { broker in
            // ESPHome's discovery config, retained as ESPHome publishes it, before the server starts.
            try await broker.publish("homeassistant/sensor/porch-node/temperature/config",
                               #"{"dev_cla":"temperature","unit_of_meas":"°C","stat_cla":"measurement","name":"Porch temperature","stat_t":"porch-node/sensor/temperature/state","avty_t":"porch-node/status","uniq_id":"ESPsensortemperature","dev":{"ids":"a4cf12b3c4d5","name":"porch-node"}}"#,
                               retain: true)
            try await withTestServer(configure: { $0.subscribe(to: broker) }) { server in
                let client = server.admin
                try await waitUntil("connected") { await client.mqttHealth == "connected" }
                try await broker.publish("porch-node/sensor/temperature/state", "21.5")
                try await broker.publish("porch-node/binary_sensor/motion/state", "ON")
                try await broker.publish("tele/tasmota_A1B2C3/SENSOR",
                                   #"{"Time":"2024-01-09T12:00:00","AM2301":{"Temperature":20.9,"Humidity":42.5,"DewPoint":7.5},"TempUnit":"C"}"#)
                try await broker.publish("zigbee2mqtt/Living room",
                                   #"{"battery":100,"humidity":58.3,"linkquality":120,"temperature":21.23,"voltage":3055}"#)
                try await broker.publish("zigbee2mqtt/bridge/state", #"{"state":"online"}"#)
                try await broker.publish("shellyplus1pm-441793d69718/status/switch:0",
                                   #"{"id":0,"source":"timer","output":true,"apower":8.9,"voltage":237.5,"current":0.068,"aenergy":{"total":6.532,"by_minute":[45.199,47.141,88.397],"minute_ts":1654511100},"temperature":{"tC":36.4,"tF":97.5}}"#)
                try await broker.publish("home/garage/climate", #"{"air":{"temperature":12.5}}"#)
                try await broker.publish("home/garage/door", "false")

                #expect(try await client.waitForReadings(device: "porch-node", field: "temperature", count: 1) == [21.5])
                let porch = try #require(try await client.mqttSensor(device: "porch-node", field: "temperature"))
                #expect(porch["units"]?.stringValue == "°C")
                #expect(porch["name"]?.stringValue == "Porch temperature")
                #expect(porch["labels"]?.objectValue == [
                    "source": .string("mqtt"), "topic": .string("porch-node/sensor/temperature/state"),
                    "device": .string("porch-node"), "field": .string("temperature"),
                ])
                #expect(try await client.waitForReadings(device: "porch-node", field: "motion", count: 1) == [1])
                #expect(try await client.waitForReadings(device: "tasmota_A1B2C3", field: "AM2301.Temperature", count: 1) == [20.9])
                #expect(try await client.mqttSensor(device: "tasmota_A1B2C3", field: "AM2301.Temperature")?["units"]?.stringValue == "°C")
                #expect(try await client.waitForReadings(device: "Living room", field: "temperature", count: 1) == [21.23])
                #expect(try await client.waitForReadings(device: "shellyplus1pm-441793d69718", field: "switch:0.apower", count: 1) == [8.9])
                #expect(try await client.waitForReadings(device: "garage", field: "air.temperature", count: 1) == [12.5])
                #expect(try await client.waitForReadings(device: "garage", field: "door", count: 1) == [0])

                let mqtt = try await client.sensors(labeled: ["source": "mqtt"])
                // 1 + 1 ESPHome, 3 Tasmota, 5 Zigbee2MQTT, 7 Shelly, 2 generic; no bridge, no discovery config.
                #expect(mqtt.count == 19)
                #expect(try await client.sensors(labeled: ["device": "bridge"]).isEmpty)
                #expect(try await client.metric("sensei_mqtt_readings_stored_total") == 19)
                #expect(try await client.metric("sensei_mqtt_connected") == 1)
            }
        }
    }

    @Test func retainedMessagesAreNotReadings() async throws {
        try await withBroker { broker in
            try await broker.publish("porch-node/sensor/humidity/state", "55", retain: true)
            try await withTestServer(configure: { $0.subscribe(to: broker) }) { server in
                let client = server.admin
                try await waitUntil("the retained message arrived and was dropped") {
                    try await client.metric(#"sensei_mqtt_dropped_total{reason="retained"}"#) == 1
                }
                try await broker.publish("porch-node/sensor/humidity/state", "56")
                #expect(try await client.waitForReadings(device: "porch-node", field: "humidity", count: 1) == [56])
            }
        }
    }

    /// Firmware that prints with `println` ends a payload with `\r\n`, which
    /// Swift holds as one Character: each of these is stored, none dropped.
    @Test func payloadsEndingInCRLFAreStored() async throws {
        try await withBroker { broker in
            try await withTestServer(configure: { $0.subscribe(to: broker, presets: [], topics: ["lab/#"]) }) { server in
                let client = server.admin
                try await waitUntil("connected") { await client.mqttHealth == "connected" }
                try await broker.publish("lab/porch/light", "ON\r\n")
                try await broker.publish("lab/porch/fan", "OFF\r\n")
                try await broker.publish("lab/porch/temperature", "21.5\r\n")
                try await broker.publish("lab/porch/climate", "{\"t\":21.5}\r\n")
                #expect(try await client.waitForReadings(device: "porch", field: "light", count: 1) == [1])
                #expect(try await client.waitForReadings(device: "porch", field: "fan", count: 1) == [0])
                #expect(try await client.waitForReadings(device: "porch", field: "temperature", count: 1) == [21.5])
                #expect(try await client.waitForReadings(device: "porch", field: "t", count: 1) == [21.5])
                for reason in MQTTDropReason.allCases {
                    #expect(try await client.metric(#"sensei_mqtt_dropped_total{reason="\#(reason.rawValue)"}"#) == 0, "\(reason)")
                }
            }
        }
    }

    @Test func badPayloadsAreCountedAndDropped() async throws {
        try await withBroker { broker in
            try await withTestServer(configure: { $0.subscribe(to: broker) }) { server in
                let client = server.admin
                try await waitUntil("connected") { await client.mqttHealth == "connected" }
                let topic = "porch-node/sensor/temperature/state"
                let bad: [(String, [UInt8], MQTTDropReason)] = [
                    (topic, Array("warm".utf8), .notANumber),
                    (topic, Array("nan".utf8), .notFinite),
                    (topic, [0x32, 0xFF, 0xC0], .invalidUTF8),
                    (topic, Array(repeating: 0x31, count: MQTTPayload.maximumBytes + 1), .tooLarge),
                    ("tele/plug/SENSOR", Array(#"{"ENERGY":{"Power":1"#.utf8), .invalidJSON),
                    ("home/" + String(repeating: "x", count: 300), Array("1".utf8), .invalidLabels),
                ]
                for (topic, payload, _) in bad { try await broker.publish(topic, payload) }
                try await broker.publish(topic, "22.5")
                #expect(try await client.waitForReadings(device: "porch-node", field: "temperature", count: 1) == [22.5])
                for (_, _, reason) in bad {
                    #expect(try await client.metric(#"sensei_mqtt_dropped_total{reason="\#(reason.rawValue)"}"#) == 1, "\(reason)")
                }
                #expect(try await client.metric("sensei_mqtt_messages_received_total") == Double(bad.count + 1))
                #expect(await client.mqttHealth == "connected")
            }
        }
    }

    @Test func sensorsPastTheLimitAreRefusedAndCounted() async throws {
        try await withBroker { broker in
            try await withTestServer(configure: { $0.subscribe(to: broker); $0.maxSensors = 2 }) { server in
                let client = server.admin
                try await waitUntil("connected") { await client.mqttHealth == "connected" }
                try await broker.publish("home/a/t", "1")
                try await broker.publish("home/b/t", "2")
                try await broker.publish("home/c/t", "3")
                try await broker.publish("home/a/t", "4")
                #expect(try await client.waitForReadings(device: "a", field: "t", count: 2) == [1, 4])
                try await waitUntil("the third sensor refused") {
                    try await client.metric(#"sensei_mqtt_dropped_total{reason="sensor_limit"}"#) == 1
                }
                #expect(try await client.mqttSensor(device: "c", field: "t") == nil)
                #expect(try await client.sensors(labeled: ["source": "mqtt"]).count == 2)
            }
        }
    }

    @Test func brokerDownAtStartThenUp() async throws {
        try await withTemporaryDirectory { directory in
            let broker = try MosquittoBroker(directory: directory + "/broker")
            defer { broker.stop() }
            try await withTestServer(configure: { $0.subscribe(to: broker) }) { server in
                let client = server.admin
                // The server serves without its broker.
                try await waitUntil("disconnected") { await client.mqttHealth == "disconnected" }
                #expect(try await client.get("/health").json["status"]?.stringValue == "ok")
                #expect(try await client.metric("sensei_mqtt_connected") == 0)
                try await broker.start()
                try await waitUntil("connected") { await client.mqttHealth == "connected" }
                try await broker.publish("home/attic/temperature", "30")
                #expect(try await client.waitForReadings(device: "attic", field: "temperature", count: 1) == [30])
                // One line per change of state, not one per attempt.
                let warnings = server.logs.entries.filter { $0.message.description.contains("retrying") }
                #expect(warnings.count == 1)
            }
        }
    }

    @Test func brokerRestartMidStream() async throws {
        try await withBroker { broker in
            try await withTestServer(configure: { $0.subscribe(to: broker) }) { server in
                let client = server.admin
                try await waitUntil("connected") { await client.mqttHealth == "connected" }
                try await broker.publishLines("home/attic/counter", (1...50).map(String.init))
                try await client.waitForReadings(device: "attic", field: "counter", count: 50)
                await broker.stop()
                try await waitUntil("disconnected") { await client.mqttHealth == "disconnected" }
                try await broker.start()
                try await waitUntil("connected again") { await client.mqttHealth == "connected" }
                try await broker.publishLines("home/attic/counter", (51...100).map(String.init))
                // QoS 1 is at least once: a message whose acknowledgement the
                // broker had not read yet when it stopped comes again after the
                // restart, and is stored again (a receive-time reading has no
                // device timestamp to be known by). Nothing lost, nothing else,
                // in order; a repeat only of what was in flight at the stop.
                var values: [Double] = []
                try await waitUntil("1 to 100 stored") {
                    guard let sensor = try await client.mqttSensor(device: "attic", field: "counter") else { return false }
                    values = try await client.values(of: sensor)
                    return Set(values).isSuperset(of: (1...100).map(Double.init))
                }
                let firstSeen = values.enumerated().filter { values.firstIndex(of: $0.element) == $0.offset }.map(\.element)
                #expect(firstSeen == (1...100).map(Double.init))
                let repeated = values.enumerated().filter { values.firstIndex(of: $0.element) != $0.offset }.map(\.element)
                #expect(repeated.allSatisfy { $0 <= 50 }, "\(repeated)")
                #expect(try await client.metric("sensei_mqtt_connects_total") == 2)
            }
        }
    }

    // On PostgreSQL too: a node alone on its database keeps its shared
    // subscription when it stops (no other node would take its share), so
    // its session holds what comes meanwhile. With others up it leaves it
    // to them: MQTTSharedSubscriptionTests.
    @Test
    func messagesQueuedWhileTheServerWasStopped() async throws {
        try await withBroker { broker in
            try await withTemporaryDirectory { data in
                try await withTestServer(dataDirectory: data, configure: { $0.subscribe(to: broker) }) { server in
                    // The first connection makes the persistent session.
                    try await waitUntil("connected") { await server.admin.mqttHealth == "connected" }
                }
                // Stopped: the broker holds these for the session (QoS 1).
                try await broker.publishLines("home/cellar/counter", (1...200).map(String.init))
                try await withTestServer(dataDirectory: data, configure: { $0.subscribe(to: broker) }) { server in
                    let values = try await server.admin.waitForReadings(device: "cellar", field: "counter", count: 200)
                    #expect(values == (1...200).map(Double.init))
                }
            }
        }
    }
}
