import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiTUI
@testable import SenseiClient

/// Compare marks (space) outlive the dashboard: saved in the cache in the
/// order marked, restored at start, those of sensors gone dropped.
@Suite struct CompareMarksTests {
    @Test func spaceSavesTheMarksInOrder() {
        var model = Fixture.model()
        #expect(model.update(.keyPressed(.character(" "))) == [.saveMarks([1])])
        _ = model.update(.keyPressed(.down))
        _ = model.update(.keyPressed(.down))
        #expect(model.update(.keyPressed(.character(" "))) == [.saveMarks([1, 3])])
        _ = model.update(.keyPressed(.up))
        _ = model.update(.keyPressed(.up))
        #expect(model.update(.keyPressed(.character(" "))) == [.saveMarks([3])])
    }

    @Test func restoredAtStartWithThoseOfSensorsGoneDropped() {
        var model = AppModel(width: 80, height: 24, now: Fixture.now, serverName: "sensei.lan:3000")
        _ = model.start()
        // The cache answers in the order asked: the list, then the marks.
        _ = model.update(.sensorsLoaded(Fixture.summaries))
        #expect(model.update(.marksLoaded([3, 9, 1])) == [.saveMarks([3, 1])])
        #expect(model.marked == [3, 1])
        #expect(AppView.render(model).text.split(separator: "\n")[2].hasPrefix("▸2 External Temperature"))
        // As kept: nothing to save.
        var again = AppModel(width: 80, height: 24, now: Fixture.now, serverName: "sensei.lan:3000")
        _ = again.update(.sensorsLoaded(Fixture.summaries))
        #expect(again.update(.marksLoaded([3, 1])) == [])
        #expect(again.marked == [3, 1])
    }

    @Test func marksBeforeTheListWaitForIt() {
        var model = AppModel(width: 80, height: 24, now: Fixture.now, serverName: nil)
        #expect(model.update(.marksLoaded([3, 9, 1])) == [])
        #expect(model.marked == [3, 9, 1])
        #expect(model.update(.sensorsLoaded(Fixture.summaries)) == [.saveMarks([3, 1])])
        #expect(model.marked == [3, 1])
    }

    @Test func aSensorDeletedOnTheServerLosesItsMark() {
        var model = Fixture.model()
        _ = model.update(.marksLoaded([1, 3]))
        let commands = model.update(.sensorsLoaded(Fixture.summaries.filter { $0.id != 3 }))
        #expect(commands.contains(.saveMarks([1])))
        #expect(model.marked == [1])
    }

    @Test func theCacheKeepsThemAcrossAReopen() async throws {
        try await withScratchDirectory { directory in
            let path = directory + "/cache.sqlite"
            do {
                let cache = try SensorCache(path: path)
                #expect(try cache.cachedMarks() == [])
                let collector = MessageCollector()
                let runner = CommandRunner(cache: cache, syncer: nil, deliver: collector.deliver)
                runner.run([.saveMarks([3, 1]), .loadMarks])
                let marks = try await collector.take { if case .marksLoaded(let ids) = $0 { ids } else { nil } }
                #expect(marks == [3, 1])
                runner.drain()
            }
            #expect(try SensorCache(path: path).cachedMarks() == [3, 1])
        }
    }
}
