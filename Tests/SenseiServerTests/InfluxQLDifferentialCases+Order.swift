/// Issue 38: which rows and series come back in which order. Rows of
/// several series at one instant (no GROUP BY), `SELECT *` with GROUP BY
/// (a tag grouped by is no column), and ORDER BY time DESC with GROUP BY
/// a tag (the series' order turns too), in Grafana's and Chronograf's shapes.
extension InfluxQLDifferentialTests {
    static var climateRanges: [String] {
        [
            "time >= \(ms(t0)) and time <= \(ms(t0 + 7200))",
            "time >= \(ms(t0 + 1800)) and time < \(ms(t0 + 2700))",
            "time >= \(ms(t0 + 600)) and time <= \(ms(t0 + 900))",
        ]
    }

    static var orderCases: [Case] {
        let (all, quarter, short) = (climateRanges[0], climateRanges[1], climateRanges[2])
        var cases: [Case] = []
        for range in climateRanges {
            cases += [
                Case(query: "SELECT \"temp\" FROM \"climate\" WHERE \(range)"),
                Case(query: "SELECT \"temp\", \"hum\" FROM \"autogen\".\"climate\" WHERE \(range)", epoch: "ms"),
                Case(query: "SELECT \"hum\" FROM \"climate\" WHERE \(range)"),
                Case(query: "SELECT \"on\" FROM \"climate\" WHERE \(range)"),
                Case(query: "SELECT temp FROM climate WHERE \(range) ORDER BY time DESC"),
                Case(query: "SELECT * FROM climate WHERE \(range) GROUP BY *"),
                Case(query: "SELECT temp FROM climate WHERE \(range) GROUP BY room ORDER BY time DESC"),
                Case(query: "SELECT watts, energy FROM power WHERE \(range)"),
            ]
        }
        cases += [
            // Ties among the rooms, with filters that change which series are there.
            Case(query: "SELECT * FROM climate WHERE \(short)"),
            Case(query: "SELECT temp FROM climate WHERE floor = '0' AND \(quarter)"),
            Case(query: "SELECT temp FROM climate WHERE hum > 42 AND \(quarter)"),
            Case(query: "SELECT temp FROM climate WHERE (room = 'bath' OR temp > 21) AND \(quarter)"),
            Case(query: "SELECT temp FROM climate WHERE room =~ /^(bath|living)$/ AND \(quarter)"),
            Case(query: "SELECT temp * 10 AS deci, hum FROM climate WHERE \(quarter)"),
            Case(query: "SELECT temp FROM climate WHERE \(all) LIMIT 10"),
            Case(query: "SELECT temp FROM climate WHERE \(all) LIMIT 10 OFFSET 5"),
            Case(query: "SELECT temp FROM climate WHERE \(all) ORDER BY time DESC LIMIT 7"),
            Case(query: "SELECT hum FROM climate"),
            Case(query: "SELECT temp FROM climate GROUP BY floor"),
            Case(query: "SELECT temp FROM climate, power WHERE \(short)"),
            Case(query: "SELECT * FROM /^(climate|power)$/ WHERE \(short)"),
            Case(query: "SELECT \"temp\" FROM \"home\".\"autogen\".\"climate\" WHERE \(quarter)", epoch: "s"),
            // SELECT * with GROUP BY: the grouped tags are the series', not columns.
            Case(query: "SELECT * FROM climate WHERE \(short) GROUP BY room"),
            Case(query: "SELECT * FROM climate WHERE \(short) GROUP BY floor"),
            Case(query: "SELECT * FROM climate WHERE \(short) GROUP BY /^fl/"),
            Case(query: "SELECT * FROM climate WHERE \(short) GROUP BY floor, room"),
            Case(query: "SELECT * FROM power WHERE \(short) GROUP BY *"),
            Case(query: "SELECT * FROM power WHERE \(short) GROUP BY meter"),
            Case(query: "SELECT * FROM /^(climate|power)$/ WHERE \(short) GROUP BY *"),
            Case(query: "SELECT * FROM climate WHERE \(short) GROUP BY * LIMIT 2"),
            Case(query: "SELECT * FROM climate WHERE \(short) GROUP BY * SLIMIT 2"),
            Case(query: "SELECT * FROM temperature WHERE time >= \(ms(t0 + 5400)) and time < \(ms(t0 + 5700)) GROUP BY *"),
            // ORDER BY time DESC with GROUP BY a tag: series in the reverse order too.
            Case(query: "SELECT temp FROM climate WHERE \(short) GROUP BY floor ORDER BY time DESC"),
            Case(query: "SELECT temp FROM climate WHERE \(short) GROUP BY * ORDER BY time DESC LIMIT 3"),
            Case(query: "SELECT * FROM climate WHERE \(short) GROUP BY room ORDER BY time DESC"),
            Case(query: "SELECT temp FROM climate WHERE \(short) GROUP BY room ORDER BY time DESC SLIMIT 2"),
            Case(query: "SELECT temp FROM climate WHERE \(short) GROUP BY room ORDER BY time DESC SLIMIT 1 SOFFSET 1"),
            Case(query: "SELECT mean(temp) FROM climate WHERE \(all) GROUP BY time(20m), room ORDER BY time DESC"),
            Case(query: "SELECT mean(temp) FROM climate WHERE \(all) GROUP BY time(30m), floor fill(none) ORDER BY time DESC"),
            Case(query: "SELECT last(temp) FROM climate WHERE \(all) GROUP BY room ORDER BY time DESC"),
            Case(query: "SELECT count(temp), max(hum) FROM climate WHERE \(all) GROUP BY room ORDER BY time DESC"),
            Case(query: "SELECT * FROM climate, power WHERE \(short) ORDER BY time DESC LIMIT 2"),
            Case(query: "SELECT count(*) FROM climate, power WHERE \(all) ORDER BY time DESC"),
            Case(query: "SELECT value FROM temperature WHERE time >= \(ms(t0 + 5400)) and time < \(ms(t0 + 5700)) GROUP BY room ORDER BY time DESC"),
            Case(query: "SELECT mean(value) FROM temperature WHERE time >= \(ms(t0)) and time <= \(ms(t0 + 10800)) GROUP BY time(1h), room ORDER BY time DESC"),
        ]
        return cases
    }
}
