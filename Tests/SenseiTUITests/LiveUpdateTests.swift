import SenseiModels
import Testing
@testable import SenseiTUI

/// The live stream as the model and the status bar see it.
@Suite struct LiveUpdateTests {
    func bar(_ model: AppModel, width: Int? = nil) -> String { Fixture.statusBar(model, width: width) }

    @Test func liveThenDroppedThenBack() {
        var model = Fixture.model()
        // Opening catches up on what committed before it, with a sync.
        #expect(model.update(.liveOpened(at: Fixture.now)) == [.sync])
        _ = model.update(.syncFinished(at: Fixture.now.adding(milliseconds: -5_000), newReadings: 0))
        model.now = Fixture.now
        #expect(bar(model) == "● online · live · synced 5s ago                 ⏎ open  / filter  ? help  q quit")
        #expect(bar(model, width: 40) == "● online · live · synced 5s ago")
        #expect(bar(model, width: 20) == "● online · live")

        _ = model.update(.liveDropped("the stream ended", at: Fixture.now))
        #expect(model.live == .dropped("the stream ended"))
        #expect(bar(model) == "● online · not live, syncing every 30s · synced 5s ago            ? help  q quit")
        #expect(bar(model, width: 40) == "● online · not live, syncing every 30s")
        #expect(model.update(.tick(Fixture.now.adding(milliseconds: 30_000))) == [.sync])

        _ = model.update(.liveOpened(at: Fixture.now.adding(milliseconds: 31_000)))
        #expect(model.live == .streaming)
    }

    @Test func offlineHidesTheLiveNote() {
        var model = Fixture.model(charset: .ascii)
        _ = model.update(.liveOpened(at: Fixture.now))
        _ = model.update(.syncFailed(.unreachable("refused"), at: Fixture.now))
        _ = model.update(.liveDropped("server unreachable: connection refused", at: Fixture.now))
        #expect(bar(model, width: 50) == "offline since 12:00 | synced 12s ago")
        var grid = CellGrid(width: 80, height: 1)
        _ = model.update(.syncFinished(at: Fixture.now, newReadings: 0))
        _ = model.update(.liveOpened(at: Fixture.now))
        StatusBar.render(model, into: &grid, area: grid.bounds)
        #expect(grid.lines[0].hasPrefix("* online | live | syncing"))
        #expect(grid[11, 0].style == CellStyle(bold: true, role: .ok))
    }

    @Test func liveReadingsReloadTheirSensorsAndTheOpenDetailOneAtATime() {
        var model = Fixture.detailModel(width: 100)
        let shown = model.detail!.sensorId
        let detail = Command.loadDetail(sensorId: shown, range: model.range)
        #expect(model.update(.liveReadings(sensorIds: [shown], unknownSensor: false))
                    == [.refreshSensors(ids: [shown]), detail])
        // More while that reload runs: one more reload, of them all, once it is done.
        #expect(model.update(.liveReadings(sensorIds: [shown], unknownSensor: false)) == [])
        #expect(model.update(.liveReadings(sensorIds: [2], unknownSensor: false)) == [])
        #expect(model.update(.sensorsRefreshed([])) == [.refreshSensors(ids: [shown, 2]), detail])
        #expect(model.update(.sensorsRefreshed([])) == [])
        // Another sensor than the detail's: only that sensor is read again.
        #expect(model.update(.liveReadings(sensorIds: [2], unknownSensor: false)) == [.refreshSensors(ids: [2])])
        #expect(model.update(.sensorsRefreshed([])) == [])
        // A reading of a sensor the cache does not know: a sync brings it.
        #expect(model.update(.liveReadings(sensorIds: [], unknownSensor: true)) == [.sync])
    }

    @Test func aRefreshedSensorTakesItsPlaceAndKeepsTheSelection() {
        var model = Fixture.model()
        _ = model.update(.keyPressed(.down))
        let selected = model.selectedSensor!.id
        var moved = Fixture.summaries[0]
        moved.sensor.latest = Reading(timestamp: Fixture.now, value: 31)
        _ = model.update(.sensorsRefreshed([moved]))
        #expect(model.sensors.map(\.id) == Fixture.summaries.map(\.id))
        #expect(model.sensors[0].sensor.latest?.value == 31)
        #expect(model.selectedSensor?.id == selected)
    }
}
