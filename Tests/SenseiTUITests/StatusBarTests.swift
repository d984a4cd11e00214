import Testing
import SenseiModels
@testable import SenseiTUI

@Suite struct StatusBarTests {
    func bar(_ model: AppModel, width: Int? = nil) -> String { Fixture.statusBar(model, width: width) }

    @Test func onlineWithTheLastSyncAndHintsThatFit() {
        // The full list hints (55 cells) do not fit beside the 25-cell state
        // in 80; the next shorter set does, right-aligned.
        #expect(bar(Fixture.model()) == "● online · synced 12s ago    ⏎ open  / filter  g group  a alerts  ? help  q quit")
        #expect(bar(Fixture.model(), width: 40) == "● online · synced 12s ago")
        #expect(bar(Fixture.model(), width: 10) == "● online")
        #expect(bar(Fixture.model(), width: 15) == "● online · syn…")
    }

    @Test func offlineSaysSinceWhen() {
        var model = Fixture.model()
        _ = model.update(.syncFailed(.unreachable("refused"), at: Fixture.time("2025-01-09T11:58:00Z")))
        #expect(bar(model, width: 40) == "offline since 11:58 · synced 12s ago")
        model.utcOffsetSeconds = 3600
        #expect(bar(model, width: 40) == "offline since 12:58 · synced 12s ago")
        model.utcOffsetSeconds = 0
        model.now = Fixture.time("2025-01-10T09:00:00Z")
        #expect(bar(model, width: 60) == "offline since Jan 09 11:58 · synced 21h ago   ? help  q quit")
    }

    @Test func errorsReplaceTheSyncNote() {
        var model = Fixture.model()
        _ = model.update(.syncFailed(.unauthorized, at: Fixture.now))
        #expect(bar(model, width: 50) == "● online · unauthorized: check your token")
        #expect(bar(model, width: 30) == "● online · unauthorized: chec…")
    }

    @Test func beforeTheFirstSync() {
        var model = AppModel(width: 40, height: 10, now: Fixture.now, serverName: "x")
        #expect(bar(model) == "not connected · never synced")
        _ = model.start()
        #expect(bar(model) == "connecting · syncing      ? help  q quit")
    }

    @Test func hintsFollowTheScreen() {
        var model = Fixture.detailModel(width: 100)
        #expect(bar(model) == "● online · synced 12s ago          1-6 range  +/- zoom  </> pan  ←→ cursor  Esc back  ? help  q quit")
        _ = model.update(.keyPressed(.character("?")))
        #expect(bar(model, width: 50) == "● online · synced 12s ago         Esc back  q quit")
    }

    @Test func asciiAndStyles() {
        var model = Fixture.model(charset: .ascii)
        #expect(bar(model) == "* online | synced 12s ago                   Enter open  / filter  ? help  q quit")
        var grid = CellGrid(width: 80, height: 1)
        StatusBar.render(model, into: &grid, area: grid.bounds)
        #expect(grid[0, 0].style.role == .ok)
        _ = model.update(.syncFailed(.unreachable("refused"), at: Fixture.now))
        StatusBar.render(model, into: &grid, area: grid.bounds)
        #expect(grid[0, 0].style == CellStyle(bold: true, role: .warning))
        // A 403 is an answer: the server is reachable again, the token is the problem.
        _ = model.update(.syncFailed(.forbidden, at: Fixture.now))
        StatusBar.render(model, into: &grid, area: grid.bounds)
        #expect(grid.lines[0].hasPrefix("* online | forbidden: the token may not read sensors"))
        #expect(grid[11, 0].style == CellStyle(bold: true, role: .error))
    }
}
