import Testing
import SenseiModels
@testable import SenseiTUI
@testable import SenseiClient

@Suite struct SyncUpdateTests {
    let now = Fixture.now
    func at(_ seconds: Int64) -> Timestamp { now.adding(milliseconds: seconds * 1000) }

    func fresh() -> AppModel {
        AppModel(width: 80, height: 24, now: now, serverName: "sensei.lan:3000")
    }

    @Test func startLoadsTheCacheThenSyncs() {
        var model = fresh()
        #expect(model.start() == [.loadSensors, .loadMarks, .loadAlerts, .startLive, .sync])
        #expect(model.isSyncing && model.lastSyncAttempt == now && model.connection == .connecting)
        var unconfigured = AppModel(width: 80, height: 24, now: now, serverName: nil)
        #expect(unconfigured.start() == [.loadSensors, .loadMarks])
    }

    @Test func aFinishedSyncReloadsWhatIsShown() {
        var model = fresh()
        _ = model.start()
        #expect(model.update(.syncFinished(at: at(2), newReadings: 10)) == [.loadSensors])
        #expect(model.connection == .online && model.lastSync == at(2) && !model.isSyncing && model.now == at(2))
        var detail = Fixture.detailModel()
        _ = detail.update(.keyPressed(.character("r")))
        #expect(detail.update(.syncFinished(at: at(1), newReadings: 1)) == [.loadSensors, .loadDetail(sensorId: 1, range: .day)])
    }

    @Test func unreachableMeansOfflineSinceTheFirstFailure() {
        var model = Fixture.model()
        _ = model.update(.keyPressed(.character("r")))
        #expect(model.update(.syncFailed(.unreachable("connection refused"), at: at(5))).isEmpty)
        #expect(model.connection == .offline(since: at(5)))
        #expect(model.errorMessage == nil)
        _ = model.update(.tick(at(15)))
        _ = model.update(.syncFailed(.unreachable("timed out"), at: at(16)))
        #expect(model.connection == .offline(since: at(5)))
        // The cache stays on screen.
        #expect(model.sensors.count == 3)
        _ = model.update(.tick(at(26)))
        _ = model.update(.syncFinished(at: at(27), newReadings: 0))
        #expect(model.connection == .online)
    }

    @Test func aRejectedTokenIsAnErrorNotOffline() {
        var model = Fixture.model()
        _ = model.update(.syncFailed(.unauthorized, at: at(1)))
        #expect(model.connection == .online)
        #expect(model.errorMessage == "unauthorized: check your token")
        _ = model.update(.syncFinished(at: at(40), newReadings: 0))
        #expect(model.errorMessage == nil)
        #expect(SyncFailure.server(status: 503, message: "server is busy; retry shortly").message
            == "server error 503: server is busy; retry shortly")
    }

    @Test func ticksRefreshOnTheIntervalAndRetrySoonerWhileOffline() {
        var model = fresh()
        _ = model.start()
        // Running: no second sync, however late.
        #expect(model.update(.tick(at(100))).isEmpty)
        // Counted from the end of the last sync, not its start.
        _ = model.update(.syncFinished(at: at(100), newReadings: 0))
        #expect(model.update(.tick(at(129))).isEmpty)
        #expect(model.update(.tick(at(130))) == [.sync])
        #expect(model.lastSyncAttempt == at(130))
        _ = model.update(.syncFailed(.unreachable("refused"), at: at(131)))
        #expect(model.update(.tick(at(140))).isEmpty)
        #expect(model.update(.tick(at(141))) == [.sync])
        // Time never runs backwards.
        _ = model.update(.tick(at(1)))
        #expect(model.now == at(141))
    }

    @Test func reloadedSensorsKeepTheUsersOrder() {
        var model = Fixture.model()
        _ = model.update(.keyPressed(.end))
        _ = model.update(.keyPressed(.character("K")))
        #expect(model.sensors.map(\.id) == [1, 3, 2])
        // The cache answers in its old order, with a new sensor at the end:
        // the model keeps its own order, appends the new one, and saves again.
        let commands = model.update(.sensorsLoaded(Fixture.summaries + [Fixture.empty]))
        #expect(model.sensors.map(\.id) == [1, 3, 2, 4])
        #expect(commands == [.saveOrder([1, 3, 2, 4])])
        #expect(model.selectedSensor?.id == 3)
        // The same order from the cache: nothing to save.
        #expect(model.update(.sensorsLoaded([1, 3, 2, 4].map { id in model.sensors.first { $0.id == id }! })).isEmpty)
    }

    @Test func theFirstLoadTakesTheCachesOrder() {
        var model = fresh()
        #expect(model.update(.sensorsLoaded([Fixture.door, Fixture.temperature])).isEmpty)
        #expect(model.sensors.map(\.id) == [3, 1] && model.sensorsLoaded)
    }

    @Test func sensorsDeletedOnTheServerLeave() {
        var model = Fixture.detailModel()
        #expect(model.detail?.sensorId == 1)
        _ = model.update(.sensorsLoaded([Fixture.humidity, Fixture.door]))
        #expect(model.sensors.map(\.id) == [2, 3])
        #expect(model.screen == .list && model.detail == nil && model.selection == 0)
        var last = Fixture.model()
        _ = last.update(.keyPressed(.end))
        _ = last.update(.sensorsLoaded([Fixture.temperature]))
        #expect(last.selection == 0)
    }

    @Test func cacheFailuresAndSignals() {
        var model = Fixture.model()
        _ = model.update(.cacheFailed("disk I/O error"))
        #expect(model.errorMessage == "cache: disk I/O error")
        #expect(model.update(.interrupted) == [.quit])
    }
}

@Suite struct InputTests {
    @Test func staleAfterThreeUsualIntervals() {
        let summary = Fixture.humidity  // hourly, last reading 6 h ago
        #expect(summary.isStale(now: Fixture.now))
        #expect(!summary.isStale(now: Fixture.now.adding(milliseconds: -3 * Fixture.hour)))
        #expect(summary.isStale(now: Fixture.now.adding(milliseconds: -3 * Fixture.hour + 1)))
        #expect(!Fixture.temperature.isStale(now: Fixture.now))
        #expect(!Fixture.door.isStale(now: Fixture.now.adding(milliseconds: 365 * Fixture.day)))
        #expect(!Fixture.empty.isStale(now: Fixture.now))
    }

    @Test func statisticsOfAWindow() {
        let series = TimeSeries(timestamps: [0, 1000, 2000, 3000], values: [4, 9, 1, 6])
        let stats = Statistics(series: series, start: Timestamp(milliseconds: 500), end: Timestamp(milliseconds: 3000))
        #expect(stats == Statistics(count: 3, min: Reading(timestamp: Timestamp(milliseconds: 2000), value: 1),
                                    max: Reading(timestamp: Timestamp(milliseconds: 1000), value: 9),
                                    mean: 16.0 / 3, oldest: Timestamp(milliseconds: 1000),
                                    newest: Timestamp(milliseconds: 3000)))
        #expect(Statistics(series: series, start: Timestamp(milliseconds: 4000), end: Timestamp(milliseconds: 5000)) == nil)
    }

    @Test func statisticsOfBuckets() {
        let series = TimeSeries(buckets: [
            Bucket(timestamp: Timestamp(milliseconds: 0), mean: 10, min: 2, max: 11, count: 3),
            Bucket(timestamp: Timestamp(milliseconds: 60_000), mean: 30, min: 25, max: 50, count: 1),
        ])
        let stats = Statistics(series: series, start: Timestamp(milliseconds: 0), end: Timestamp(milliseconds: 60_000))
        #expect(stats?.count == 4 && stats?.mean == 15)
        #expect(stats?.min == Reading(timestamp: Timestamp(milliseconds: 0), value: 2))
        #expect(stats?.max == Reading(timestamp: Timestamp(milliseconds: 60_000), value: 50))
    }

    @Test func windowsOfTheRanges() {
        let now = Fixture.now
        #expect(SensorWindow.bounds(for: .hour, now: now, oldest: nil) == (now.adding(milliseconds: -Fixture.hour), now))
        #expect(SensorWindow.bounds(for: .week, now: now, oldest: nil).start == now.adding(milliseconds: -7 * Fixture.day))
        let oldest = Fixture.time("2024-03-01T00:00:00Z")
        #expect(SensorWindow.bounds(for: .all, now: now, oldest: oldest) == (oldest, now))
        #expect(SensorWindow.bounds(for: .all, now: now, oldest: nil).start == now.adding(milliseconds: -Fixture.day))
        #expect(SensorWindow.bounds(for: .all, now: now, oldest: now).start == now.adding(milliseconds: -60_000))
    }
}
