import Testing
import SenseiModels
@testable import SenseiTUI

@Suite struct DetailUpdateTests {
    func press(_ model: AppModel, _ keys: Key...) -> (AppModel, [Command]) {
        var model = model
        var commands: [Command] = []
        for key in keys { commands += model.update(.keyPressed(key)) }
        return (model, commands)
    }

    func press(_ model: AppModel, _ key: Key, times: Int) -> (AppModel, [Command]) {
        var model = model
        var commands: [Command] = []
        for _ in 0..<times { commands += model.update(.keyPressed(key)) }
        return (model, commands)
    }

    @Test func rangeKeysByNumberAndLetter() {
        let model = Fixture.detailModel()
        let keys: [(Key, TimeRange)] = [
            (.character("1"), .hour), (.character("h"), .hour), (.character("3"), .week), (.character("w"), .week),
            (.character("4"), .month), (.character("m"), .month), (.character("5"), .year), (.character("y"), .year),
            (.character("6"), .all), (.character("a"), .all),
        ]
        for (key, range) in keys {
            let (next, commands) = press(model, key)
            #expect(next.range == range)
            #expect(commands == [.loadDetail(sensorId: 1, range: range)])
            // The old range's data is not shown under the new range's name.
            #expect(next.detail?.data == nil)
        }
        // The range already shown: nothing to load.
        let (same, commands) = press(model, .character("2"))
        #expect(commands.isEmpty && same.detail?.data != nil)
    }

    @Test func staleDetailAnswersAreIgnored() {
        let (model, _) = press(Fixture.detailModel(), .character("w"))
        let late = Fixture.detail(Fixture.temperature, range: .day)
        #expect(update(model, .detailLoaded(late)).0.detail?.data == nil)
        let other = Fixture.detail(Fixture.humidity, range: .week)
        #expect(update(model, .detailLoaded(other)).0.detail?.data == nil)
        let fresh = Fixture.detail(Fixture.temperature, range: .week)
        #expect(update(model, .detailLoaded(fresh)).0.detail?.data == fresh)
    }

    @Test func cursorStartsAtTheNewestColumnAndClamps() {
        let model = Fixture.detailModel()
        // 80 columns minus the "25" labels and the axis column.
        #expect(model.detailPlotWidth() == 77)
        #expect(press(model, .left).0.detail?.cursor == 76)
        #expect(press(model, .right).0.detail?.cursor == 76)
        #expect(press(model, .left, .left, .left).0.detail?.cursor == 74)
        #expect(press(model, .left, .right, .right, .right).0.detail?.cursor == 76)
        #expect(press(model, .home, .left).0.detail?.cursor == 0)
        #expect(press(model, .home, .end).0.detail?.cursor == 76)
    }

    @Test func resizeClampsTheCursor() {
        let (model, _) = press(Fixture.detailModel(), .end)
        let narrow = update(model, .resized(width: 40, height: 12)).0
        #expect(narrow.detail?.cursor == 36)
        #expect(narrow.width == 40 && narrow.height == 12)
    }

    @Test func escapeHidesTheCursorThenGoesBack() {
        let (withCursor, _) = press(Fixture.detailModel(), .left)
        let (hidden, _) = press(withCursor, .escape)
        #expect(hidden.screen == .detail && hidden.detail?.cursor == nil)
        let (list, commands) = press(hidden, .backspace)
        #expect(list.screen == .list && list.detail == nil && commands.isEmpty)
        #expect(press(Fixture.detailModel(), .escape).0.screen == .list)
    }

    @Test func helpReturnsToTheDetail() {
        let (help, _) = press(Fixture.detailModel(), .character("?"))
        #expect(help.screen == .help && help.screenBeforeHelp == .detail)
        #expect(press(help, .enter).0.screen == .detail)
    }

    @Test func tableScrollsByLineAndPageWithinTheReadings() {
        let model = Fixture.detailModel()
        #expect(model.detailTableRows() == 7)
        #expect(press(model, .down, .down, .character("j")).0.detail?.tableOffset == 3)
        #expect(press(model, .down, .character("k"), .up).0.detail?.tableOffset == 0)
        #expect(press(model, .pageDown, .pageDown).0.detail?.tableOffset == 14)
        #expect(press(model, .pageDown, .pageUp).0.detail?.tableOffset == 0)
        // 288 readings, 7 rows: the last page starts at 281.
        let (bottom, commands) = press(model, .pageDown, times: 50)
        #expect(bottom.detail?.tableOffset == 281)
        #expect(commands.isEmpty)
    }

    @Test func scrollingNearTheEndOfAPageLoadsTheNextOne() {
        var model = Fixture.detailModel()
        var data = Fixture.detail(Fixture.temperature, range: .day)
        let all = data.readings
        data.readings = Array(all.prefix(20))
        model.detail?.data = data
        #expect(data.totalReadings == 288)
        let (loading, commands) = press(model, .pageDown)
        #expect(commands == [.loadReadings(sensorId: 1, from: data.start, before: all[19].timestamp, limit: 500)])
        #expect(loading.detail?.isLoadingMore == true)
        // No second request while one runs.
        #expect(press(loading, .pageDown).1.isEmpty)
        let page = Array(all[20...])
        // A page read for another window (the range changed meanwhile) is dropped.
        let (stale, _) = update(loading, .readingsLoaded(sensorId: 1, from: data.start.adding(milliseconds: -1), readings: page))
        #expect(stale.detail?.data?.readings == Array(all.prefix(20)))
        let (loaded, _) = update(loading, .readingsLoaded(sensorId: 1, from: data.start, readings: page))
        #expect(loaded.detail?.data?.readings == all)
        #expect(loaded.detail?.isLoadingMore == false)
        #expect(press(loaded, .pageDown).1.isEmpty)
    }

    @Test func anEmptyPageEndsTheLoading() {
        var model = Fixture.detailModel()
        model.detail?.data?.totalReadings = 10_000
        // 288 loaded of 10 000: the request goes out once the table is within two
        // pages of the loaded end (offset 274 and on).
        let (before, none) = press(model, .pageDown, times: 39)
        #expect(before.detail?.tableOffset == 273 && none.isEmpty)
        let (loading, commands) = press(before, .pageDown)
        #expect(commands.count == 1)
        let (done, _) = update(loading, .readingsLoaded(sensorId: 1, from: loading.detail!.data!.start, readings: []))
        #expect(done.detail?.data?.totalReadings == 288)
        #expect(press(done, .pageDown).1.isEmpty)
    }
}
