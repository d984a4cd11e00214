import Testing
import SenseiModels
@testable import SenseiTUI
@testable import SenseiClient

/// `+` `-` `<` `>` `0` in the detail chart: the window, the commands, the
/// labels that follow, and the cache reading a zoomed window.
@Suite struct DetailZoomTests {
    func press(_ model: AppModel, _ keys: Key...) -> (AppModel, [Command]) {
        var model = model
        var commands: [Command] = []
        for key in keys { commands += model.update(.keyPressed(key)) }
        return (model, commands)
    }

    static let hour = Fixture.hour
    static var now: Int64 { Fixture.now.milliseconds }

    /// The day view zoomed by `keys`, its zoomed data loaded as the cache would give it.
    func zoomed(_ keys: Key...) -> AppModel {
        var model = Fixture.detailModel(range: .day)
        for key in keys { _ = model.update(.keyPressed(key)) }
        if let window = model.detail?.zoom {
            // What the cache gives for the window: its readings, statistics and table.
            let series = Fixture.temperature.recent
            let start = Timestamp(milliseconds: window.lowerBound), end = Timestamp(milliseconds: window.upperBound)
            let low = series.lowerBound(window.lowerBound), high = series.upperBound(window.upperBound)
            var data = DetailData(sensor: Fixture.temperature.sensor, range: .day, start: start, end: end, series: series,
                                  statistics: Statistics(series: series, start: start, end: end),
                                  readings: (low..<high).reversed().map { series.reading(at: $0) },
                                  usualInterval: Fixture.temperature.usualInterval)
            data.zoomed = true
            _ = model.update(.detailLoaded(data))
        }
        return model
    }

    @Test func plusHalvesAroundTheMiddleMinusDoublesAndNeverPassesNow() {
        let day = Fixture.detailModel(range: .day)
        let id = day.detail!.sensorId
        let (inOnce, commands) = press(day, .character("+"))
        // The last 24 h halved around its middle (now − 12 h).
        #expect(inOnce.detail?.zoom == (Self.now - 18 * Self.hour)...(Self.now - 6 * Self.hour))
        #expect(commands == [.loadZoomedDetail(sensorId: id, range: .day,
                                               window: (Self.now - 18 * Self.hour)...(Self.now - 6 * Self.hour))])
        #expect(press(day, .character("+"), .character("+")).0.detail?.zoom
                == (Self.now - 15 * Self.hour)...(Self.now - 9 * Self.hour))
        #expect(press(day, .character("+"), .character("-")).0.detail?.zoom == (Self.now - 24 * Self.hour)...Self.now)
        // Doubled around the middle it would end 12 h from now: it ends now instead.
        #expect(press(day, .character("-")).0.detail?.zoom == (Self.now - 48 * Self.hour)...Self.now)
    }

    @Test func panMovesHalfAWindowAndZeroResets() {
        let zoomedIn = press(Fixture.detailModel(range: .day), .character("+"), .character("+")).0
        let left = press(zoomedIn, .character("<")).0
        #expect(left.detail?.zoom == (Self.now - 18 * Self.hour)...(Self.now - 12 * Self.hour))
        #expect(press(left, .character("<")).0.detail?.zoom == (Self.now - 21 * Self.hour)...(Self.now - 15 * Self.hour))
        #expect(press(left, .character(">")).0.detail?.zoom == (Self.now - 15 * Self.hour)...(Self.now - 9 * Self.hour))
        // Never past now: `>` on a window that ends now changes nothing.
        #expect(press(Fixture.detailModel(range: .day), .character(">")).1.isEmpty)
        #expect(press(zoomedIn, .character(">"), .character(">"), .character(">")).0.detail?.zoom
                == (Self.now - 6 * Self.hour)...Self.now)
        let (reset, commands) = press(left, .character("0"))
        #expect(reset.detail?.zoom == nil)
        #expect(commands == [.loadDetail(sensorId: reset.detail!.sensorId, range: .day)])
        // A new range drops the zoom too.
        #expect(press(left, .character("w")).0.detail?.zoom == nil)
    }

    @Test func zoomKeepsTheTimeUnderTheCursor() {
        var model = Fixture.detailModel(range: .day)
        _ = model.update(.keyPressed(.home))  // cursor on the first column: the window's start
        let before = model.detailWindow!
        let zoomed = press(model, .character("+")).0.detail!.zoom!
        // Anchored at the first column, the start barely moves.
        #expect(abs(zoomed.lowerBound - before.lowerBound) < (before.upperBound - before.lowerBound) / 50)
        #expect(zoomed.upperBound - zoomed.lowerBound == 12 * Self.hour)
    }

    @Test func zoomStopsAtAMinute() {
        var model = Fixture.detailModel(range: .hour)
        for _ in 0..<10 { _ = model.update(.keyPressed(.character("+"))) }
        let zoom = model.detail!.zoom!
        #expect(zoom.upperBound - zoom.lowerBound == AppModel.minimumZoomSpan)
        #expect(press(model, .character("+")).1.isEmpty)
    }

    @Test func dataForAnotherWindowIsDropped() {
        var model = press(Fixture.detailModel(range: .day), .character("+")).0
        let shown = model.detail?.data
        // The range's own window arriving late (a reload from before the zoom) is not shown.
        var late = Fixture.detail(Fixture.temperature, range: .day)
        late.readings = []
        _ = model.update(.detailLoaded(late))
        #expect(model.detail?.data == shown)
        // The zoomed window's data is.
        let loaded = zoomed(.character("+"))
        #expect(loaded.detail?.data?.zoomed == true)
        #expect(loaded.detail?.data?.start.milliseconds == Self.now - 18 * Self.hour)
    }

    @Test func zoomedLabelsFollowTheWindow() {
        let model = zoomed(.character("+"), .character("+"), .character("+"), .character("<"))
        // snapshot: three hours, 21:00–00:00, zoomed in three times and panned back half a window
        #expect(AppView.render(model).text == """
             External Temperature                                            25 °C · 3m ago
             1 hour  2 day  3 week  4 month  5 year  6 all   zoom 3h (0 resets)
            17.5┤                                                                    ⣀⠤⠤⠤⠒⠉
                │                                                           ⢀⡠⠤⠤⠔⠊⠉⠉⠉
              17┤                                                   ⣀⠤⠤⠤⠔⠊⠉⠉⠁
                │                                             ⣀⠤⠤⠤⠒⠉
                │                                    ⢀⡠⠤⠤⠤⠒⠉⠉⠉
            16.5┤                         ⣀⣀⣀⡠⠔⠒⠒⠒⠉⠉⠉⠁
                │                 ⣀⣀⣀⠤⠒⠒⠒⠉
              16┤        ⢀⣀⣀⡠⠔⠒⠒⠒⠉
                │  ⣀⣀⣀⡠⠔⠊⠁
            15.5┤⠐⠉
                └┴───────────┴────────────┴───────────┴────────────┴───────────┴───────────┴
                 21:00     21:30        22:00       22:30        23:00       23:30     00:00
            ←/→ cursor  1-6 range  PgUp/PgDn readings
            Count    36                             Time                 Value     1–7 of 36
            Min      15.6 °C  2025-01-08 21:02      2025-01-08 23:57:00  17.5 °C
            Max      17.5 °C  2025-01-08 23:57      2025-01-08 23:52:00  17.4 °C
            Mean     16.561 °C                      2025-01-08 23:47:00  17.4 °C
            Oldest   2025-01-08 21:02               2025-01-08 23:42:00  17.3 °C
            Code     temperature_ext                2025-01-08 23:37:00  17.3 °C
            Type     float, units °C                2025-01-08 23:32:00  17.2 °C
            Created  2025-01-02 10:00               2025-01-08 23:27:00  17.2 °C
            ● online · synced 12s ago         1-6 range  ←→ cursor  Esc back  ? help  q quit
            """)
    }

    /// The cache reads a window it is given, not the range's.
    @Test func theCacheReadsTheZoomedWindow() async throws {
        try await withScratch { scratch in
            let (cache, sensor) = try Self.dayOfReadings(in: scratch)
            let window = (Self.now - 2 * Self.hour)...(Self.now - Self.hour)
            let data = try #require(try cache.detail(sensorId: sensor.id, range: .day, now: Fixture.now, window: window))
            #expect(data.zoomed && data.start.milliseconds == window.lowerBound && data.end.milliseconds == window.upperBound)
            #expect(data.statistics?.count == 13)
            #expect(data.readings.first?.timestamp.milliseconds == Self.now - Self.hour)
            #expect(data.readings.last?.timestamp.milliseconds == Self.now - 2 * Self.hour)
            let day = try #require(try cache.detail(sensorId: sensor.id, range: .day, now: Fixture.now))
            #expect(!day.zoomed && day.statistics?.count == 288)
        }
    }

    /// A zoom's readings table pages on to the zoom's start, not the range's.
    @Test func theTableOfAZoomEndsWhereItsChartDoes() async throws {
        try await withScratch { scratch in
            let (cache, sensor) = try Self.dayOfReadings(in: scratch)
            let window = (Self.now - 2 * Self.hour)...(Self.now - Self.hour)
            var data = try #require(try cache.detail(sensorId: sensor.id, range: .day, now: Fixture.now, window: window,
                                                     tablePage: 5))
            #expect(data.readings.count == 5 && data.totalReadings == 13)

            // Scrolling near the end of the loaded rows asks for the window's next page...
            var model = Fixture.detailModel(range: .day)
            _ = model.update(.keyPressed(.character("+")))
            model.detail?.zoom = window
            _ = model.update(.detailLoaded(data))
            let commands = press(model, .pageDown).1
            let before = try #require(data.readings.last?.timestamp)
            #expect(commands == [.loadReadings(sensorId: sensor.id, from: Timestamp(milliseconds: window.lowerBound),
                                               before: before, limit: 500)])

            // ...which ends at the window's start: 8 more, none older.
            let page = try cache.readings(sensorId: sensor.id, from: data.start, before: before, limit: 500)
            #expect(page.count == 8)
            #expect(page.last?.timestamp.milliseconds == window.lowerBound)
            data.readings += page
            #expect(data.readings.count == data.totalReadings)
        }
    }

    /// A cache holding the temperature sensor's last day, a reading every 5 minutes (288).
    static func dayOfReadings(in scratch: Scratch) throws -> (SensorCache, Sensor) {
        let cache = try scratch.openCache()
        let sensor = Fixture.temperature.sensor
        _ = try cache.mergeSensors([sensor])
        let readings = (0..<288).map { Reading(timestamp: Timestamp(milliseconds: now - Int64(287 - $0) * 300_000),
                                               value: Double($0)) }
        try cache.insertReadings(readings, sensorId: sensor.id)
        return (cache, sensor)
    }
}
