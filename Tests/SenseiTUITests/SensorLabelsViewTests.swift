import Testing
import SenseiModels
@testable import SenseiTUI

/// Labels in the dashboard's sensor information and in `sensei list --json`.
@Suite("Sensor labels in the dashboard")
struct SensorLabelsViewTests {
    static var labelled: SensorSummary {
        var summary = Fixture.temperature
        summary.sensor.labels = ["source": "mqtt", "device": "porch-node", "field": "temperature"]
        return summary
    }

    @Test func infoPanelListsLabelsInKeyOrder() {
        let model = Fixture.detailModel(width: 120, height: 40, summary: Self.labelled)
        // Pre-filled with x: the panel writes only its own cells.
        var grid = CellGrid(width: 60, height: 6, filledWith: "x")
        DetailView.renderInfo(Fixture.detail(Self.labelled, range: .day), model: model, into: &grid,
                              area: Rect(x: 0, y: 0, width: 60, height: 5))
        #expect(grid.lines == [
            "Codexxxxxtemperature_extxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "Typexxxxxfloat, units °Cxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "Createdxx2025-01-02 10:00xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "Intervalxevery 5m · 12/h shownxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            "Labelsxxxdevice=porch-node field=temperature source=mqttxxxx",
            "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
        ])
    }

    @Test func listJSONCarriesLabels() {
        let context = TextReport.Context(now: Fixture.now, utcOffsetSeconds: 0, charset: .unicode)
        let text = TextReport.listJSON([Self.labelled], context)
        #expect(text.contains(#""count":1234,"labels":{"device":"porch-node","field":"temperature","source":"mqtt"},"kind":"gauge","stale":false}"#))
    }

    /// The cache keeps what the server sent, and gives it back.
    @Test func cacheKeepsLabels() async throws {
        try await withScratch { scratch in
        let cache = try scratch.openCache()
        try cache.mergeSensors([Self.labelled.sensor, Fixture.humidity.sensor])
        #expect(try cache.sensor(id: 1)?.labels == Self.labelled.sensor.labels)
        #expect(try cache.sensor(id: 2)?.labels == [:])
        var relabelled = Self.labelled.sensor
        relabelled.labels = ["room": "porch"]
        try cache.mergeSensors([relabelled])
        #expect(try cache.sensors().map(\.labels) == [["room": "porch"]])
        }
    }
}
