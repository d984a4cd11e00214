import Testing
import SenseiModels
@testable import SenseiTUI

/// `g` offers the keys people group by first: those that split the sensors
/// into more than one group of more than one, the most sensors grouped first,
/// then the finer split; the status bar names the key `g` moves to.
@Suite struct GroupKeysTests {
    /// A house through Telegraf: one `climate` measurement, three fields in
    /// four rooms, each sensor its own `entity_id`; two sensors on each of two
    /// devices.
    static var house: [SensorSummary] {
        var sensors: [SensorSummary] = []
        for room in ["kitchen", "bath", "bedroom", "living"] {
            for field in ["temperature", "humidity", "pressure"] {
                let id = Int64(sensors.count + 1)
                var sensor = Fixture.sensor(id: id, code: "\(room)_\(field)", name: "\(room) \(field)")
                sensor.labels = ["source": "influx", "measurement": "climate", "field": field, "room": room,
                                 "entity_id": "sensor.\(room)_\(field)"]
                if field != "pressure" && (room == "kitchen" || room == "bath") { sensor.labels["device"] = "\(room)-node" }
                sensors.append(SensorSummary(sensor: sensor))
            }
        }
        return sensors
    }

    @Test func usefulKeysFirstMostSensorsGroupedThenFinerSplit() {
        let splits = Dictionary(uniqueKeysWithValues: ListLayout.splits(of: Self.house).map { ($0.key, $0) })
        #expect(splits["room"] == ListLayout.Split(key: "room", groups: 4, grouped: 12))
        #expect(splits["field"] == ListLayout.Split(key: "field", groups: 3, grouped: 12))
        #expect(splits["device"] == ListLayout.Split(key: "device", groups: 2, grouped: 4))
        #expect(splits["measurement"] == ListLayout.Split(key: "measurement", groups: 1, grouped: 12))
        #expect(splits["entity_id"] == ListLayout.Split(key: "entity_id", groups: 0, grouped: 0))
        // room and field group all twelve: room splits finer. device groups four.
        // One group (measurement, source) or none (entity_id): after, by name.
        #expect(ListLayout.groupKeys(of: Self.house) == ["room", "field", "device", "entity_id", "measurement", "source"])
    }

    @Test func gFollowsTheOrderAndTheHintNamesTheNext() {
        var model = Fixture.model(width: 110, sensors: Self.house)
        #expect(model.groupKeys == ["room", "field", "device", "entity_id", "measurement", "source"])
        #expect(Fixture.statusBar(model).hasSuffix("⏎ open  / filter  g by room  a alerts  space mark  c compare  ? help  q quit"))
        _ = model.update(.keyPressed(.character("g")))
        #expect(model.grouping == "room")
        #expect(Fixture.statusBar(model).contains("g by field  a alerts"))
        for _ in 0..<5 { _ = model.update(.keyPressed(.character("g"))) }
        #expect(model.grouping == "source")
        #expect(Fixture.statusBar(model).contains("g ungroup  a alerts"))
        _ = model.update(.keyPressed(.character("g")))
        #expect(model.grouping == nil)
    }

    @Test func keysAreRankedAgainWhenSensorsComeOrGoAndAtEachG() {
        var model = Fixture.model(sensors: Self.house)
        #expect(model.groupKeys.first == "room")
        // Relabelled so `field` groups more sensors than `room`: a reading's
        // reload of the list does not rank again, the next `g` does.
        var relabelled = Self.house
        for index in relabelled.indices where index % 3 == 0 { relabelled[index].sensor.labels["room"] = nil }
        relabelled[0].sensor.count += 1
        _ = model.update(.sensorsLoaded(relabelled))
        #expect(model.groupKeys.first == "room")
        _ = model.update(.keyPressed(.character("g")))
        #expect(model.grouping == "field")
        #expect(model.groupKeys.prefix(2) == ["field", "room"])
        // A sensor gone: ranked again at once.
        _ = model.update(.keyPressed(.character("g")))
        _ = model.update(.sensorsLoaded(Array(Self.house.dropLast())))
        #expect(model.groupKeys.first == "room")
    }

    @Test func noLabelsThePlainHint() {
        let model = Fixture.model(width: 110)
        #expect(model.groupKeys.isEmpty)
        #expect(Fixture.statusBar(model).hasSuffix("⏎ open  / filter  g group  a alerts  space mark  c compare  ? help  q quit"))
    }
}
