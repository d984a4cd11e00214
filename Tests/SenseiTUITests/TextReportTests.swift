import Testing
import SenseiModels
@testable import SenseiTUI
@testable import SenseiClient

@Suite("sensei list and show output")
struct TextReportTests {
    static let unicode = TextReport.Context(now: Fixture.now, utcOffsetSeconds: 0, charset: .unicode)
    static let ascii = TextReport.Context(now: Fixture.now, utcOffsetSeconds: 0, charset: .ascii)

    static var humidityDay: DetailData {
        let start = Fixture.now.adding(milliseconds: -Fixture.day)
        let summary = Fixture.humidity
        return DetailData(
            sensor: summary.sensor, range: .day, start: start, end: Fixture.now, series: summary.recent,
            statistics: Statistics(series: summary.recent, start: start, end: Fixture.now),
            readings: [Reading(timestamp: Fixture.now.adding(milliseconds: -6 * Fixture.hour), value: 42)],
            usualInterval: Fixture.hour)
    }

    @Test func listTableInUserOrder() {
        let text = TextReport.list([Fixture.temperature, Fixture.humidity, Fixture.door, Fixture.empty], Self.unicode)
        #expect(text == """
            CODE             NAME                  VALUE  UPDATED  LAST 24 H
            temperature_ext  External Temperature  25 °C  3m ago   ▁▁▂▂▂▂▃▃▃▄▄▄▅▅▅▆▆▆▇▇▇▇██
            humidity         Humidity              42 %   6h ago   ▁▃▅▆█▁▃▅▆█▁▃▅▆█▁▃▅▆       stale
            door             Front door            on     45s ago                        ▁█
            new_probe        New probe             -      never

            """)
    }

    @Test func listInASCII() {
        let text = TextReport.list([Fixture.temperature, Fixture.humidity], Self.ascii)
        #expect(text == """
            CODE             NAME                  VALUE    UPDATED  LAST 24 H
            temperature_ext  External Temperature  25 degC  3m ago   ___.......----=======^^^
            humidity         Humidity              42 %     6h ago   _.-=^_.-=^_.-=^_.-=       stale

            """)
        #expect(text.utf8.allSatisfy { $0 < 0x80 })
    }

    @Test func emptyList() {
        #expect(TextReport.list([], Self.unicode) == "no sensors yet\n")
        #expect(TextReport.listJSON([], Self.unicode) == "{\"sensors\":[]}\n")
    }

    @Test func listJSON() {
        #expect(TextReport.listJSON([Fixture.humidity, Fixture.empty], Self.unicode) == """
            {"sensors":[{"id":2,"code":"humidity","name":"Humidity","units":"%","valueType":"int",\
            "latest":{"timestamp":"2025-01-09T06:00:00Z","value":42},"count":19,"labels":{},"kind":"gauge","stale":true},\
            {"id":4,"code":"new_probe","name":"New probe","units":"","valueType":"float","latest":null,\
            "count":0,"labels":{},"kind":"gauge","stale":false}]}

            """)
    }

    @Test func showStatisticsAndChart() {
        #expect(TextReport.show(Self.humidityDay, Self.unicode, width: 60, chartHeight: 8) == """
            Humidity (humidity), last 24 hours
            current  42 %  6h ago
            count    19
            min      40 %  at 2025-01-08 12:00
            max      44 %  at 2025-01-08 16:00
            mean     41.895 %
            oldest   2025-01-08 12:00

            44┤        ⢠⠺⡀         ⡰⢇          ⡔⢇
              │      ⢀⠔⠁ ⡇       ⢀⠜ ⠸⡀       ⡠⠊ ⠸⡀       ⡠
              │     ⡠⠃   ⢱      ⡠⠃   ⡇      ⡔⠁   ⡇     ⢀⠜
            42┤   ⡠⠊     ⠸⡀   ⡠⠊     ⢸    ⡠⠊     ⢸    ⡔⠁
              │ ⢠⠊        ⡇ ⡠⠊       ⠈⡆ ⡠⠊       ⠈⡆ ⡠⠊
            40┤⡰⠁         ⢱⠔⠁         ⢱⠔⠁         ⢱⠔⠁
              └───────┴──────┴──────┴──────┴──────┴──────┴──────┴───────
                    15:00  18:00  21:00  00:00  03:00  06:00  09:00

            """)
    }

    @Test func showInASCIIAndLocalTime() {
        let context = TextReport.Context(now: Fixture.now, utcOffsetSeconds: 3600, charset: .ascii)
        let text = TextReport.show(Self.humidityDay, context, width: 40, chartHeight: 6)
        #expect(text == """
            Humidity (humidity), last 24 hours
            current  42 %  6h ago
            count    19
            min      40 %  at 2025-01-08 13:00
            max      44 %  at 2025-01-08 17:00
            mean     41.895 %
            oldest   2025-01-08 13:00

            44+     ||     .|.     .|.
              |   .| |    |' |    |' |   .|
            42+ .-'   | .'   | .-'   | .-'
            40+.'     ||     '|'     '|'
              +-------+--------+---------+--------+-
                    18:00    00:00     06:00   12:00

            """)
    }

    @Test func showJSON() {
        #expect(TextReport.showJSON(Self.humidityDay) == """
            {"sensor":{"id":2,"code":"humidity","name":"Humidity","units":"%","valueType":"int",\
            "latest":{"timestamp":"2025-01-09T06:00:00Z","value":42},"count":19,"labels":{},"kind":"gauge"},"range":"day",\
            "start":"2025-01-08T12:00:00Z","end":"2025-01-09T12:00:00Z","statistics":{"count":19,\
            "min":{"timestamp":"2025-01-08T12:00:00Z","value":40},"max":{"timestamp":"2025-01-08T16:00:00Z","value":44},\
            "mean":41.89473684210526,"oldest":"2025-01-08T12:00:00Z","newest":"2025-01-09T06:00:00Z"},\
            "readings":[{"timestamp":"2025-01-09T06:00:00Z","value":42}]}

            """)
    }

    @Test func showWithoutReadings() {
        let empty = DetailData(sensor: Fixture.empty.sensor, range: .hour, start: Fixture.now.adding(milliseconds: -Fixture.hour),
                               end: Fixture.now, series: TimeSeries(), statistics: nil, readings: [])
        let text = TextReport.show(empty, Self.unicode, width: 40, chartHeight: 5)
        #expect(text.hasPrefix("New probe (new_probe), last 1 hour\ncurrent  no readings yet\nno readings in this range\n"))
        #expect(TextReport.showJSON(empty).contains(#""statistics":null,"readings":[]}"#))
    }
}
