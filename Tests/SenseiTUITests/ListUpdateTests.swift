import Testing
import SenseiModels
@testable import SenseiTUI

@Suite struct ListUpdateTests {
    func press(_ model: AppModel, _ keys: Key...) -> (AppModel, [Command]) {
        var model = model
        var commands: [Command] = []
        for key in keys { commands += model.update(.keyPressed(key)) }
        return (model, commands)
    }

    @Test func movingTheSelectionClampsAtBothEnds() {
        let model = Fixture.model()
        #expect(press(model, .down).0.selection == 1)
        #expect(press(model, .character("j"), .character("j")).0.selection == 2)
        #expect(press(model, .down, .down, .down, .down).0.selection == 2)
        #expect(press(model, .up).0.selection == 0)
        #expect(press(model, .down, .character("k")).0.selection == 0)
        #expect(press(model, .end).0.selection == 2)
        #expect(press(model, .end, .home).0.selection == 0)
        #expect(press(model, .down, .up, .up).1.isEmpty)
    }

    @Test func shiftKMovesTheSensorUpAndSavesTheOrder() {
        let (model, commands) = press(Fixture.model(), .down, .down, .character("K"))
        #expect(model.sensors.map(\.id) == [1, 3, 2])
        #expect(model.selection == 1)
        #expect(model.selectedSensor?.id == 3)
        #expect(commands == [.saveOrder([1, 3, 2])])
    }

    @Test func shiftJAndShiftArrowsMoveDown() {
        let (model, commands) = press(Fixture.model(), .character("J"), .shiftDown)
        #expect(model.sensors.map(\.id) == [2, 3, 1])
        #expect(model.selection == 2)
        #expect(commands == [.saveOrder([2, 1, 3]), .saveOrder([2, 3, 1])])
        let (back, more) = press(model, .shiftUp)
        #expect(back.sensors.map(\.id) == [2, 1, 3])
        #expect(more == [.saveOrder([2, 1, 3])])
    }

    @Test func reorderingPastTheEndsDoesNothing() {
        let (top, commands) = press(Fixture.model(), .character("K"))
        #expect(top.sensors.map(\.id) == [1, 2, 3] && commands.isEmpty)
        let (bottom, more) = press(Fixture.model(), .end, .character("J"))
        #expect(bottom.sensors.map(\.id) == [1, 2, 3] && more.isEmpty)
    }

    @Test func enterOpensTheDetailForTheRange() {
        let (model, commands) = press(Fixture.model(), .down, .enter)
        #expect(model.screen == .detail)
        #expect(model.detail == DetailState(sensorId: 2))
        #expect(commands == [.loadDetail(sensorId: 2, range: .day)])
        #expect(press(Fixture.model(sensors: []), .enter) == (Fixture.model(sensors: []), []))
    }

    @Test func quitHelpAndRefresh() {
        #expect(press(Fixture.model(), .character("q")).1 == [.quit])
        let (help, _) = press(Fixture.model(), .character("?"))
        #expect(help.screen == .help)
        #expect(press(help, .escape).0.screen == .list)
        #expect(press(help, .character("?")).0.screen == .list)
        #expect(press(help, .character("q")).1 == [.quit])
        let (refreshing, commands) = press(Fixture.model(), .character("r"))
        #expect(commands == [.sync] && refreshing.isSyncing)
        // A sync already running is not started twice.
        #expect(press(refreshing, .character("r")).1.isEmpty)
    }

    @Test func theListScrollsToKeepTheSelectionInView() {
        // 20×8: title, header, 6 rows of content minus the status bar: 5 sensor rows.
        let sensors = (1...12).map { index in
            SensorSummary(sensor: Fixture.sensor(id: Int64(index), code: "s\(index)", name: "Sensor \(index)"))
        }
        let model = Fixture.model(width: 20, height: 8, sensors: sensors)
        #expect(ListView.visibleRowCount(in: AppView.contentArea(width: 20, height: 8)) == 5)
        let (down, _) = press(model, .down, .down, .down, .down, .down, .down)
        #expect(down.selection == 6 && down.listTop == 2)
        let (page, _) = press(model, .pageDown)
        #expect(page.selection == 5 && page.listTop == 1)
        let (end, _) = press(model, .end)
        #expect(end.listTop == 7)
        let (up, _) = press(end, .up, .up, .up, .up, .up)
        #expect(up.selection == 6 && up.listTop == 6)
        // Growing the screen shows more rows above the selection.
        let grown = update(end, .resized(width: 20, height: 24)).0
        #expect(grown.listTop == 0 && grown.selection == 11)
        // Shrinking keeps the selection visible.
        let shrunk = update(up, .resized(width: 20, height: 5)).0
        #expect(shrunk.listTop == 6 && ListView.visibleRowCount(in: AppView.contentArea(width: 20, height: 5)) == 3)
    }
}
