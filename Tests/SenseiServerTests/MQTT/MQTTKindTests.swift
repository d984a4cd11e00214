import Foundation
import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

/// A sensor's kind as MQTT ingest sets it, through a real Mosquitto broker:
/// each ecosystem's energy total becomes a counter, its other values stay
/// gauges, and a kind an admin set is never changed by ingest.
@Suite struct MQTTKindTests {
    @Test func energyTotalsBecomeCountersAndTheRestStayGauges() async throws {
        try await withBroker { broker in
            // Home Assistant discovery configs, retained as publishers leave them, for generic topics.
            try await broker.publish("homeassistant/sensor/grid/energy/config",
                               #"{"name":"Grid energy","state_topic":"home/grid/energy","unit_of_measurement":"kWh","device_class":"energy","state_class":"total_increasing"}"#,
                               retain: true)
            try await broker.publish("homeassistant/sensor/grid/net/config",
                               #"{"name":"Grid net","stat_t":"home/grid/net","unit_of_meas":"kWh","stat_cla":"total"}"#,
                               retain: true)
            try await broker.publish("homeassistant/sensor/grid/power/config",
                               #"{"name":"Grid power","state_topic":"home/grid/power","unit_of_measurement":"W","state_class":"measurement"}"#,
                               retain: true)
            try await withTestServer(configure: { $0.subscribe(to: broker) }) { server in
                let client = server.admin
                try await waitUntil("connected") { await client.mqttHealth == "connected" }
                try await broker.publish("home/grid/energy", "1234.5")
                try await broker.publish("home/grid/net", "-12.5")
                try await broker.publish("home/grid/power", "450")
                try await broker.publish("tele/plug/SENSOR",
                                   #"{"Time":"2025-03-30T12:00:00","ENERGY":{"TotalStartTime":"2025-01-07T19:57:17","Total":12.3,"Yesterday":0.5,"Today":0.2,"Power":45,"Voltage":231,"Current":0.2}}"#)
                try await broker.publish("shellyplus1pm-441793d69718/status/switch:0",
                                   #"{"id":0,"source":"init","output":true,"apower":8.9,"voltage":237.5,"aenergy":{"total":1234.5,"by_minute":[45.1,47.1,88.3],"minute_ts":1743336000}}"#)
                try await broker.publish("energy-node/sensor/total_daily_energy/state", "1.25")
                try await broker.publish("energy-node/sensor/power/state", "230.5")

                let expected: [(device: String, field: String, kind: String)] = [
                    ("grid", "energy", "counter"), ("grid", "net", "counter"), ("grid", "power", "gauge"),
                    ("plug", "ENERGY.Total", "counter"), ("plug", "ENERGY.Power", "gauge"),
                    ("plug", "ENERGY.Today", "gauge"), ("plug", "ENERGY.Voltage", "gauge"),
                    ("shellyplus1pm-441793d69718", "switch:0.aenergy.total", "counter"),
                    ("shellyplus1pm-441793d69718", "switch:0.apower", "gauge"),
                    ("energy-node", "total_daily_energy", "counter"), ("energy-node", "power", "gauge"),
                ]
                for (device, field, kind) in expected {
                    try await client.waitForReadings(device: device, field: field, count: 1)
                    let sensor = try #require(try await client.mqttSensor(device: device, field: field))
                    #expect(sensor["kind"]?.stringValue == kind, "\(device) \(field)")
                    // The same in the single sensor's object as in the list.
                    let id = sensor["id"]?.intValue ?? -1
                    #expect(try await client.get("/sensors/\(id)").json["kind"]?.stringValue == kind, "\(device) \(field)")
                }
                #expect(try await client.mqttSensor(device: "grid", field: "energy")?["units"]?.stringValue == "kWh")
                #expect(try await client.mqttSensor(device: "shellyplus1pm-441793d69718", field: "switch:0.aenergy.total")?["units"]?.stringValue == "Wh")

                // Line protocol says nothing of kinds: a total written there is a gauge.
                let written = try await client.request("POST", "/write?db=home", body: Array("energy,device=meter total=12.5\n".utf8))
                #expect(written.status == 204)
                let influx = try #require(try await client.sensors(labeled: ["source": "influx"]).first)
                #expect(influx["kind"]?.stringValue == "gauge")
            }
        }
    }

    @Test func laterWordFromIngestChangesTheKindUntilAnAdminSetsIt() async throws {
        try await withBroker { broker in
            try await withTestServer(configure: { $0.subscribe(to: broker) }) { server in
                let client = server.admin
                try await waitUntil("connected") { await client.mqttHealth == "connected" }
                // A state before any config: nothing says what it is, so a gauge.
                try await broker.publish("home/heatpump/energy", "100")
                try await client.waitForReadings(device: "heatpump", field: "energy", count: 1)
                let sensor = try #require(try await client.mqttSensor(device: "heatpump", field: "energy"))
                let path = "/sensors/\(sensor["id"]?.intValue ?? -1)"
                #expect(sensor["kind"]?.stringValue == "gauge")

                // The discovery config arrives later: the next state makes it a counter.
                let config = #"{"name":"Heat pump energy","state_topic":"home/heatpump/energy","unit_of_measurement":"kWh","state_class":"total_increasing"}"#
                try await broker.publish("homeassistant/sensor/heatpump/energy/config", config, retain: true)
                try await broker.publish("home/heatpump/energy", "101")
                try await client.waitForReadings(device: "heatpump", field: "energy", count: 2)
                #expect(try await client.get(path).json["kind"]?.stringValue == "counter")
                #expect(try await client.get(path).json["name"]?.stringValue == "Heat pump energy")

                // An admin says it is a gauge after all: ingest no longer changes it.
                #expect(try await client.patch(path, json: #"{"kind":"gauge"}"#).json["kind"]?.stringValue == "gauge")
                try await broker.publish("homeassistant/sensor/heatpump/energy/config", config, retain: true)
                try await broker.publish("home/heatpump/energy", "102")
                try await client.waitForReadings(device: "heatpump", field: "energy", count: 3)
                #expect(try await client.get(path).json["kind"]?.stringValue == "gauge")

                // The same for a preset's counter: set to gauge, its next payload leaves it so.
                try await broker.publish("tele/plug/SENSOR", #"{"ENERGY":{"Total":1.5,"Power":10}}"#)
                try await client.waitForReadings(device: "plug", field: "ENERGY.Total", count: 1)
                let total = try #require(try await client.mqttSensor(device: "plug", field: "ENERGY.Total"))
                #expect(total["kind"]?.stringValue == "counter")
                let totalPath = "/sensors/\(total["id"]?.intValue ?? -1)"
                #expect(try await client.patch(totalPath, json: #"{"kind":"gauge"}"#).status == 200)
                try await broker.publish("tele/plug/SENSOR", #"{"ENERGY":{"Total":1.6,"Power":10}}"#)
                try await client.waitForReadings(device: "plug", field: "ENERGY.Total", count: 2)
                #expect(try await client.get(totalPath).json["kind"]?.stringValue == "gauge")
            }
        }
    }
}
