import SenseiModels
import Testing
@testable import SenseiTUI
@testable import SenseiClient

/// The detail's usage bars (`u`) at the model and view level: which sensors
/// get them, the intervals each range asks for, the screen as text, the
/// cursor's interval, and a counter's chart without its resets.
@Suite struct DetailUsageTests {
    static let berlin = try! TimeZoneRules.named("Europe/Berlin")

    /// A power plug in W (a gauge), every 5 minutes for the last day.
    static var plug: SensorSummary {
        let start = Fixture.now.milliseconds - Fixture.day + 5 * Fixture.minute
        let recent = Fixture.series(from: start, every: 5 * Fixture.minute, count: 288) { Double(100 + $0 % 3) }
        return SensorSummary(
            sensor: Fixture.sensor(id: 6, code: "plug", name: "Heat pump plug", units: "W",
                                   latest: Reading(timestamp: Fixture.now, value: 102), count: 288),
            recent: recent, usualInterval: 5 * Fixture.minute)
    }

    /// The hourly values of the fixture's day report, in Wh: 100 + 50 × (hour mod 5).
    static let hourValues: [Double] = (0..<24).map { 100 + 50 * Double($0 % 5) }

    /// The report the server would send for the plug's day in Berlin: 24
    /// hours from 2025-01-08T13:00Z (14:00 in Berlin) to the running one.
    static var dayReport: UsageReport {
        let first = Fixture.time("2025-01-08T13:00:00Z").milliseconds
        let usage = hourValues.enumerated().map { index, value in
            UsageBucket(start: Timestamp(milliseconds: first + Int64(index) * Fixture.hour), value: value, count: 12,
                        complete: index < 23)
        }
        return UsageReport(sensor: "plug", interval: .hour, timeZone: "Europe/Berlin", units: "Wh", usage: usage)
    }

    /// The plug's detail with its bars on and the day report in from the cache.
    static func barsModel(width: Int = 80, height: Int = 24) -> AppModel {
        var model = Fixture.detailModel(width: width, height: height, summary: plug)
        model.zone = berlin
        _ = model.update(.keyPressed("u"))
        _ = model.update(.usageLoaded(sensorId: 6, range: .day,
                                      usage: CachedUsage(report: dayReport, fetchedAt: Fixture.now), fetching: false))
        return model
    }

    @Test func theRangesAskForTheirIntervalsInTheZone() {
        let now = Fixture.now  // 13:00 on Thursday 2025-01-09 in Berlin
        let day = UsagePlan(range: .day, now: now, zone: Self.berlin)
        #expect(day.interval == .hour && day.after == Fixture.time("2025-01-08T13:00:00Z") && day.before == now)
        let week = UsagePlan(range: .week, now: now, zone: Self.berlin)
        #expect(week.interval == .day && week.after == Fixture.time("2025-01-02T23:00:00Z"))
        let month = UsagePlan(range: .month, now: now, zone: Self.berlin)
        #expect(month.interval == .day && month.after == Fixture.time("2024-12-10T23:00:00Z"))
        let year = UsagePlan(range: .year, now: now, zone: Self.berlin)
        #expect(year.interval == .month && year.after == Fixture.time("2024-01-31T23:00:00Z"))
        let all = UsagePlan(range: .all, now: now, zone: Self.berlin, oldest: Fixture.time("2022-06-15T08:00:00Z"))
        #expect(all.interval == .month && all.after == Fixture.time("2022-05-31T22:00:00Z"))
        // A week across the clocks going back: seven days, one of them 25 hours.
        let autumn = UsagePlan(range: .week, now: Fixture.time("2025-10-30T12:00:00Z"), zone: Self.berlin)
        #expect(autumn.after == Fixture.time("2025-10-23T22:00:00Z"))
    }

    @Test func barsApplyToCountersAndPowerSensorsOnly() {
        func sensor(_ units: String, _ kind: SensorKind) -> Sensor {
            Sensor(id: 1, code: "s", name: "S", units: units, valueType: .float, createdAt: Fixture.now,
                   updatedAt: Fixture.now, latest: nil, count: 0, kind: kind)
        }
        #expect(sensor("W", .gauge).hasUsage && sensor("kW", .gauge).hasUsage && sensor("MW", .gauge).hasUsage)
        #expect(sensor("kWh", .counter).hasUsage && sensor("m³", .counter).hasUsage)
        #expect(!sensor("°C", .gauge).hasUsage && !sensor("kWh", .gauge).hasUsage && !sensor("w", .gauge).hasUsage)
    }

    /// `u` on a temperature shows no bars, and the status bar does not offer
    /// it; pressed anyway, the bar says why and how to change the sensor
    /// (issue 38: it did nothing and said nothing).
    @Test func theToggleIsOfferedWhereItApplies() {
        var temperature = Fixture.detailModel()
        #expect(!Fixture.statusBar(temperature).contains("u usage"))
        var before = temperature
        #expect(temperature.update(.keyPressed("u")).isEmpty)
        #expect(!temperature.showsUsage)
        let why = #"usage needs a counter or units W/kW/MW: PATCH /sensors/temperature_ext {"kind":"counter"}"#
        before.errorMessage = why
        #expect(temperature == before)
        // In the sync note's place, as the other refusals of a key are.
        #expect(Fixture.statusBar(temperature, width: 120).hasPrefix("● online · " + why + "  "))

        var plug = Fixture.detailModel(summary: Self.plug)
        plug.zone = Self.berlin
        #expect(Fixture.statusBar(plug).contains("u usage"))
        #expect(plug.update(.keyPressed("u")) == [.loadUsage(sensorId: 6, range: .day, zone: Self.berlin)])
        #expect(plug.showsUsage && Fixture.statusBar(plug).contains("u chart"))
        // Another range asks again; `u` again is the chart.
        #expect(plug.update(.keyPressed("w")) == [.loadDetail(sensorId: 6, range: .week),
                                                  .loadUsage(sensorId: 6, range: .week, zone: Self.berlin)])
        _ = plug.update(.keyPressed("u"))
        #expect(!plug.showsUsage)
    }

    @Test func loadingThenUnavailableThenOfflineWithNothingCached() {
        var model = Fixture.detailModel(summary: Self.plug)
        _ = model.update(.keyPressed("u"))
        #expect(AppView.render(model).text.contains("Loading usage…"))
        _ = model.update(.usageLoaded(sensorId: 6, range: .day, usage: CachedUsage(report: nil, fetchedAt: Fixture.now),
                                      fetching: false))
        #expect(AppView.render(model).text
                .contains("usage unavailable: the server has no usage route (older than Sensei 1.2)"))
        var offline = Fixture.detailModel(summary: Self.plug)
        _ = offline.update(.keyPressed("u"))
        _ = offline.update(.usageLoaded(sensorId: 6, range: .day, usage: nil, fetching: false))
        #expect(AppView.render(offline).text.contains("no usage cached for this range"))
    }

    /// A day by hour in Berlin: 24 bars, the scale's top 500 Wh (the highest
    /// hour is 300), the hours' local names, and the total of the day.
    @Test func theDayAsBars80x24() {
        let model = Self.barsModel()
        let total = Self.hourValues.reduce(0, +)
        let cycle: Double = 100 + 150 + 200 + 250 + 300
        #expect(total == 4 * cycle + 700)
        // snapshot: usage80x24 (11 plot rows: 100 Wh is 0.2 × 88 eighths ≈ 18, two cells and ▂)
        #expect(AppView.render(model).text == """
         Heat pump plug                                                102 W · just now
         1 hour  2 day  3 week  4 month  5 year  6 all
         500 Wh│
               │
               │
               │
               │            ▅▅             ▅▅             ▅▅             ▅▅
               │         ▄▄ ██          ▄▄ ██          ▄▄ ██          ▄▄ ██          ▄▄
               │      ▃▃ ██ ██       ▃▃ ██ ██       ▃▃ ██ ██       ▃▃ ██ ██       ▃▃ ██
               │   ▂▂ ██ ██ ██    ▂▂ ██ ██ ██    ▂▂ ██ ██ ██    ▂▂ ██ ██ ██    ▂▂ ██ ██
               │▂▂ ██ ██ ██ ██ ▂▂ ██ ██ ██ ██ ▂▂ ██ ██ ██ ██ ▂▂ ██ ██ ██ ██ ▂▂ ██ ██ ██
               │██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██
              0│██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██ ██
                14 15 16 17 18 19 20 21 22 23 00 01 02 03 04 05 06 07 08 09 10 11 12 13
        total 4700 Wh  per hour, Europe/Berlin  ←/→ interval
        Count    288                            Time                 Value    1–7 of 288
        Min      100 W  2025-01-08 12:05        2025-01-09 12:00:00  102 W
        Max      102 W  2025-01-08 12:15        2025-01-09 11:55:00  101 W
        Mean     101 W                          2025-01-09 11:50:00  100 W
        Oldest   2025-01-08 12:05               2025-01-09 11:45:00  102 W
        Code     plug                           2025-01-09 11:40:00  101 W
        Type     float, units W                 2025-01-09 11:35:00  100 W
        Created  2025-01-02 10:00               2025-01-09 11:30:00  102 W
        ● online · synced 12s ago                      u chart  Esc back  ? help  q quit
        """)
    }

    /// The cursor walks the bars: the first step shows it on the running
    /// hour, the second on the one before, 12:00 on Thursday in Berlin (11:00
    /// UTC), index 22: 100 + 50 × (22 mod 5).
    @Test func theCursorShowsTheIntervalUnderIt() {
        var model = Self.barsModel()
        _ = model.update(.keyPressed(.left))
        _ = model.update(.keyPressed(.left))
        #expect(model.detail?.cursor == 22)
        let readout = AppView.render(model).lines[14]
        #expect(readout.hasPrefix("Thu Jan 09 12:00  200 Wh  (12 readings)  total 4700 Wh"))
        _ = model.update(.keyPressed(.end))
        #expect(AppView.render(model).lines[14].hasPrefix("Thu Jan 09 13:00  250 Wh so far  (12 readings)"))
        _ = model.update(.keyPressed(.home))
        #expect(model.detail?.cursor == 0)
        #expect(AppView.render(model).lines[14].hasPrefix("Wed Jan 08 14:00  100 Wh"))
        _ = model.update(.keyPressed(.left))
        #expect(model.detail?.cursor == 0)
        // Esc hides the cursor; the total stays.
        _ = model.update(.keyPressed(.escape))
        #expect(AppView.render(model).lines[14].hasPrefix("total 4700 Wh  per hour, Europe/Berlin"))
    }

    /// A counter's reset is no drop on its chart: the line carries on from
    /// where it was (10 → 0.5 is a rise of 0.5 after the reset).
    @Test func aCounterIsChartedWithoutItsResets() {
        let raw = TimeSeries(timestamps: [0, 1, 2, 3, 4], values: [9, 10, 0.5, 1.5, 2])
        #expect(raw.withoutResets().values == [9, 10, 10.5, 11.5, 12])
        #expect(raw.withoutResets().timestamps == raw.timestamps)
        // Buckets: the second held a reset after reaching 12; the third counts on from there.
        let buckets = TimeSeries(buckets: [
            Bucket(timestamp: Timestamp(milliseconds: 0), mean: 9, min: 8, max: 10, count: 3),
            Bucket(timestamp: Timestamp(milliseconds: 10), mean: 6, min: 0.2, max: 12, count: 3),
            Bucket(timestamp: Timestamp(milliseconds: 20), mean: 1.5, min: 1, max: 2, count: 3),
        ]).withoutResets()
        #expect(buckets.minimums == [8, 10, 13])
        #expect(buckets.maximums == [10, 12, 14])
        #expect(buckets.values == [9, 11, 13.5])
        // A gauge is left alone; a counter's chart draws the adjusted line.
        var meter = Self.plug
        meter.sensor.kind = .counter
        meter.sensor.units = "kWh"
        let series = TimeSeries(timestamps: (0..<60).map { Fixture.now.milliseconds - Int64(59 - $0) * Fixture.minute },
                                values: (0..<60).map { Double($0 < 30 ? 100 + $0 : $0 - 30) })
        var data = Fixture.detail(meter, range: .hour, series: series)
        let counterChart = LineChart(detail: data, utcOffsetSeconds: 0, charset: .ascii)
        let carriedOn: Double = 100 + 29 + 29
        #expect(counterChart.series.values.last == carriedOn)
        data.sensor.kind = .gauge
        #expect(LineChart(detail: data, utcOffsetSeconds: 0, charset: .ascii).series.values.last == Double(29))
    }

    /// `sensei show plug --usage` as text: the line naming the intervals,
    /// the total, and the bars the detail draws, in ASCII for a non-UTF-8 locale.
    @Test func showUsageAsText() {
        let context = TextReport.Context(now: Fixture.now, utcOffsetSeconds: 3600, charset: .ascii)
        let text = TextReport.usage(Self.dayReport, sensor: Self.plug.sensor, range: .day, zone: Self.berlin, context,
                                    width: 40, chartHeight: 6)
        // snapshot: show-usage
        #expect(text == """
            Heat pump plug (plug), usage per hour, last 24 hours, Europe/Berlin
            total 4700 Wh

             500 Wh|
                   |
                   |   ##   ##   ##   ##   #
                   | #### #### #### #### ###
                  0|########################
                    14 17 20 23 02 05 08 11

            """)
        #expect(TextReport.usageJSON(Self.dayReport).hasPrefix(
            #"{"sensor":"plug","interval":"hour","tz":"Europe/Berlin","units":"Wh","usage":[{"start":"2025-01-08T13:00:00Z","value":100,"count":12,"complete":true},"#))
    }

    /// A kWh counter that restarted at half past: on its chart (ASCII, an
    /// hour) the line goes on rising through the reset instead of falling to
    /// the bottom of the axis. The readings: 0.1 kWh a minute from 20, back to
    /// 0 at minute 30, then 0.1 a minute again; drawn, 20 up to 25.8 (22.9 + 2.9).
    @Test func aCountersChartAcrossAResetAsText() {
        var meter = Self.plug
        meter.sensor.kind = .counter
        meter.sensor.units = "kWh"
        let values: [Double] = (0..<60).map { (index: Int) -> Double in
            index < 30 ? 20 + Double(index) / 10 : Double(index - 30) / 10
        }
        let series = Fixture.series(from: Fixture.now.milliseconds - 59 * Fixture.minute, every: Fixture.minute,
                                    count: 60) { values[$0] }
        let chart = LineChart(detail: Fixture.detail(meter, range: .hour, series: series), utcOffsetSeconds: 0,
                              charset: .ascii)
        var grid = CellGrid(width: 40, height: 8)
        chart.render(into: &grid, area: grid.bounds)
        // snapshot: counter-reset
        #expect(grid.text == """
            26+                                ..---
              |                          ..---''
            24+                    .---''
            22+            ...--'''
              |      ..--'''
            20+..--'''
              ++--------+--------+--------+--------+
               11:00  11:15    11:30    11:45  12:00
            """)
        // The same readings as a gauge do fall to the bottom.
        meter.sensor.kind = .gauge
        var gauge = CellGrid(width: 40, height: 8)
        LineChart(detail: Fixture.detail(meter, range: .hour, series: series), utcOffsetSeconds: 0, charset: .ascii)
            .render(into: &gauge, area: gauge.bounds)
        #expect(gauge.text != grid.text)
    }
}
