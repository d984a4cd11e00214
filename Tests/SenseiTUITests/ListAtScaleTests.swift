import SenseiModels
import Testing
@testable import SenseiTUI
@testable import SenseiClient

/// The list of a big house: the layout is made when the list changes, not
/// per frame or key; sparklines are read for the rows on screen only, and
/// again only when the minute turns or a live reading moves their sensor on.
@Suite struct ListAtScaleTests {
    /// `count` sensors, each labelled with one of 20 rooms, none with a sparkline.
    static func house(_ count: Int) -> [SensorSummary] {
        (1...count).map { index in
            var sensor = Fixture.sensor(id: Int64(index), code: "probe_\(index)", name: "Probe \(index)", units: "°C",
                                        latest: Reading(timestamp: Fixture.now.adding(milliseconds: -60_000), value: 20),
                                        count: 10)
            sensor.labels = ["room": "room \(index % 20)"]
            return SensorSummary(sensor: sensor)
        }
    }

    static func model(_ count: Int, height: Int = 24) -> AppModel {
        Fixture.model(height: height, sensors: house(count))
    }

    /// The ids of the sensor rows on screen now.
    static func shownIds(_ model: AppModel) -> [Int64] {
        let visible = ListView.visibleRowCount(in: AppView.contentArea(width: model.width, height: model.height))
        return model.listLayout.sensors(onRows: model.listTop..<(model.listTop + visible)).map { model.sensors[$0].id }
    }

    @Test func sparklinesAreReadForTheRowsOnScreenOnly() {
        var model = Self.model(1_000)
        let shown = Self.shownIds(model)
        #expect(shown.count == 21)
        #expect(model.loadRecentOnScreen() == [.loadRecent(sensorIds: shown)])
        // Asked for already: not again while the read runs.
        #expect(model.loadRecentOnScreen() == [])
        let loaded = Dictionary(uniqueKeysWithValues: shown.map {
            ($0, RecentSeries(series: TimeSeries(timestamps: [Fixture.now.milliseconds - 60_000], values: [20]),
                              usualInterval: 60_000, asOf: Fixture.now))
        })
        _ = model.update(.recentLoaded(loaded))
        #expect(model.loadRecentOnScreen() == [])
        // A page down: the new rows only.
        _ = model.update(.keyPressed(.pageDown))
        let next = Self.shownIds(model)
        #expect(model.loadRecentOnScreen() == [.loadRecent(sensorIds: next.filter { !shown.contains($0) })])
    }

    @Test func sparklinesAreReadAgainWhenTheMinuteTurnsOrAReadingArrives() {
        var model = Self.model(100)
        let shown = Self.shownIds(model)
        _ = model.loadRecentOnScreen()
        _ = model.update(.recentLoaded(Dictionary(uniqueKeysWithValues: shown.map {
            ($0, RecentSeries(series: TimeSeries(), usualInterval: nil, asOf: Fixture.now))
        })))
        // Ticks within the minute: nothing to read.
        _ = model.update(.tick(Fixture.now.adding(milliseconds: 30_000)))
        #expect(model.loadRecentOnScreen() == [])
        // A live reading of one sensor on screen: that one.
        _ = model.update(.liveReadings(sensorIds: [shown[3]], unknownSensor: false))
        #expect(model.loadRecentOnScreen() == [.loadRecent(sensorIds: [shown[3]])])
        _ = model.update(.recentLoaded([shown[3]: RecentSeries(series: TimeSeries(), usualInterval: nil,
                                                                asOf: Fixture.now.adding(milliseconds: 30_000))]))
        // The minute turns: every row on screen.
        _ = model.update(.tick(Fixture.now.adding(milliseconds: 60_000)))
        #expect(model.loadRecentOnScreen() == [.loadRecent(sensorIds: shown)])
    }

    @Test func theListDrawsTheSparklinesReadForIt() {
        var model = Fixture.model(sensors: Fixture.summaries.map { SensorSummary(sensor: $0.sensor) })
        var grid = CellGrid(width: 80, height: 24)
        ListView.render(model, into: &grid, area: AppView.contentArea(width: 80, height: 24))
        let bare = grid.framed
        let loaded = Dictionary(uniqueKeysWithValues: Fixture.summaries.map {
            ($0.id, RecentSeries(series: $0.recent, usualInterval: $0.usualInterval, asOf: Fixture.now))
        })
        _ = model.update(.recentLoaded(loaded))
        grid = CellGrid(width: 80, height: 24)
        ListView.render(model, into: &grid, area: AppView.contentArea(width: 80, height: 24))
        // The same frame as a list whose summaries carry their series.
        var full = CellGrid(width: 80, height: 24)
        ListView.render(Fixture.model(), into: &full, area: AppView.contentArea(width: 80, height: 24))
        #expect(grid.framed == full.framed)
        #expect(grid.framed != bare)
    }

    @Test func filterAndGroupingAtTenThousandSensors() {
        var model = Self.model(10_000)
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            _ = model.update(.keyPressed(.character("/")))
            for character in "probe 99" { _ = model.update(.keyPressed(.character(character))) }
        }
        // probe 99, probe 990…999, probe 9900…9999.
        #expect(model.listLayout.order.count == 111)
        #expect(model.selectedSensor?.sensor.code == "probe_99")
        _ = model.update(.keyPressed(.enter))
        _ = model.update(.keyPressed(.escape))
        #expect(model.listLayout.order.count == 10_000)
        _ = model.update(.keyPressed(.character("g")))
        #expect(model.grouping == "room")
        #expect(model.listLayout.rows.count == 10_020)
        // A bound that only catches a hang or a quadratic pass.
        #expect(elapsed < .seconds(5))
    }
}
