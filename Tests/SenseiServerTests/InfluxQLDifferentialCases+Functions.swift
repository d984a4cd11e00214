/// Issue 38: functions whose answers hung on InfluxDB's details. mode() and
/// percentile() over ties (which value, which point's time), transformations
/// of aggregates by time and tag (how far back they read), arithmetic over
/// two fields where one is missing, and the functions that refuse booleans.
extension InfluxQLDifferentialTests {
    static var functionCases: [Case] {
        let (all, quarter, _) = (climateRanges[0], climateRanges[1], climateRanges[2])
        // Ranges that start mid-window, where a transformation reads back.
        let late = "time >= \(ms(t0 + 1500)) and time <= \(ms(t0 + 6000))"
        var cases: [Case] = []
        // mode(): floats, integers and booleans, over one series and several.
        for range in [all, quarter, late] {
            cases += [
                Case(query: "SELECT mode(temp), mode(hum), mode(on) FROM climate WHERE \(range)"),
                Case(query: "SELECT mode(temp), mode(hum) FROM climate WHERE \(range) GROUP BY room"),
                Case(query: "SELECT mode(temp) FROM climate WHERE \(range) GROUP BY time(10m)"),
                Case(query: "SELECT mode(hum) FROM climate WHERE \(range) GROUP BY time(15m), floor"),
                Case(query: "SELECT mode(watts), mode(energy) FROM power WHERE \(range) GROUP BY time(30m)"),
            ]
        }
        cases += [
            Case(query: "SELECT mode(\"temp\") FROM \"climate\" WHERE \(all) GROUP BY time(5m), \"room\" fill(null)", epoch: "ms"),
            Case(query: "SELECT mode(hum) FROM temperature WHERE time >= \(ms(t0)) and time <= \(ms(t0 + 10800)) GROUP BY time(20m)"),
            Case(query: "SELECT mode(*) FROM climate WHERE \(quarter)"),
        ]
        // percentile() alone is a selector: its point's time shows.
        for p in ["1", "5", "25", "33.3", "50", "75", "90", "99", "100"] {
            cases += [
                Case(query: "SELECT percentile(temp, \(p)) FROM climate WHERE \(all)"),
                Case(query: "SELECT percentile(hum, \(p)) FROM climate WHERE \(quarter) GROUP BY room"),
            ]
        }
        cases += [
            Case(query: "SELECT percentile(temp, 50) FROM climate WHERE \(late) GROUP BY floor"),
            Case(query: "SELECT percentile(watts, 80) FROM power WHERE \(all) GROUP BY meter"),
            Case(query: "SELECT percentile(temp, 50), percentile(temp, 90) FROM climate WHERE \(all)"),
            Case(query: "SELECT percentile(temp, 95) FROM climate WHERE \(all) GROUP BY time(20m)"),
            Case(query: "SELECT percentile(\"temp\", 95) FROM \"climate\" WHERE \(all) GROUP BY time(10m), \"room\"", epoch: "ms"),
            Case(query: "SELECT median(temp), median(hum) FROM climate WHERE \(all) GROUP BY time(30m), room"),
            Case(query: "SELECT max(temp), min(hum) FROM climate WHERE \(quarter)"),
            Case(query: "SELECT first(temp) FROM climate WHERE \(quarter)"),
            Case(query: "SELECT last(on) FROM climate WHERE \(quarter)"),
        ]
        // Transformations of aggregates by time (and a tag): how far back each reads.
        for range in [all, late] {
            for n in 2...5 {
                cases.append(Case(query: "SELECT moving_average(mean(temp), \(n)) FROM climate WHERE \(range) GROUP BY time(10m)"))
            }
            for inner in ["sum(temp)", "count(temp)", "max(hum)"] {
                cases.append(Case(query: "SELECT cumulative_sum(\(inner)) FROM climate WHERE \(range) GROUP BY time(10m), room"))
            }
            cases += [
                Case(query: "SELECT moving_average(mean(temp), 3) FROM climate WHERE \(range) GROUP BY time(15m), room"),
                Case(query: "SELECT moving_average(max(hum), 2) FROM climate WHERE \(range) GROUP BY time(5m), floor"),
                Case(query: "SELECT cumulative_sum(sum(temp)) FROM climate WHERE \(range) GROUP BY time(10m)"),
                Case(query: "SELECT cumulative_sum(sum(energy)) FROM power WHERE \(range) GROUP BY time(20m), meter"),
                Case(query: "SELECT derivative(mean(temp), 1m) FROM climate WHERE \(range) GROUP BY time(10m), room"),
                Case(query: "SELECT non_negative_derivative(max(energy)) FROM power WHERE \(range) GROUP BY time(10m), meter"),
                Case(query: "SELECT difference(sum(hum)) FROM climate WHERE \(range) GROUP BY time(20m), room"),
                Case(query: "SELECT non_negative_difference(mean(watts)) FROM power WHERE \(range) GROUP BY time(15m)"),
                Case(query: "SELECT elapsed(sum(temp), 1s) FROM climate WHERE \(range) GROUP BY time(10m), floor"),
            ]
        }
        // Arithmetic over two fields: rows where either one has a point.
        for range in [all, quarter] {
            cases += [
                Case(query: "SELECT \"watts\" + \"energy\" FROM \"power\" WHERE \(range)"),
                Case(query: "SELECT watts * energy, watts FROM power WHERE \(range)"),
                Case(query: "SELECT energy - watts AS net FROM power WHERE \(range) GROUP BY meter"),
                Case(query: "SELECT (watts + energy) / 2 FROM power WHERE \(range) GROUP BY *"),
            ]
        }
        cases += [
            Case(query: "SELECT watts + 1, energy * 2 FROM power WHERE \(quarter)"),
            Case(query: "SELECT watts + energy FROM power WHERE energy > 20 AND \(quarter)"),
            Case(query: "SELECT watts FROM power WHERE energy > 20 AND \(quarter)"),
            Case(query: "SELECT temp + hum FROM climate WHERE \(quarter) GROUP BY room"),
            Case(query: "SELECT temp - hum FROM climate WHERE room = 'bath' AND \(quarter)"),
        ]
        // Functions InfluxDB refuses over booleans, as the statement's error.
        for function in ["mean", "median", "sum", "spread", "stddev", "integral", "derivative", "non_negative_derivative",
                         "difference", "non_negative_difference", "cumulative_sum"] {
            cases.append(Case(query: "SELECT \(function)(on) FROM climate WHERE \(quarter)"))
        }
        cases += [
            Case(query: "SELECT percentile(on, 50) FROM climate WHERE \(quarter)"),
            Case(query: "SELECT moving_average(on, 2) FROM climate WHERE \(quarter)"),
            Case(query: "SELECT mean(\"on\") FROM \"climate\" WHERE \(all) GROUP BY time(10m) fill(null)"),
            Case(query: "SELECT mean(temp), mean(on) FROM climate WHERE \(quarter)"),
            Case(query: "SELECT mean(on), mean(temp) FROM climate WHERE \(quarter)"),
            Case(query: "SELECT mean(*) FROM climate WHERE \(quarter)"),
            Case(query: "SELECT sum(*), spread(*) FROM climate WHERE \(quarter) GROUP BY room"),
            Case(query: "SELECT derivative(mean(on), 1m) FROM climate WHERE \(all) GROUP BY time(10m)"),
            Case(query: "SELECT derivative(max(on)) FROM climate WHERE \(all) GROUP BY time(10m)"),
            Case(query: "SELECT count(on), mode(on), first(on), last(on), min(on), max(on) FROM climate WHERE \(quarter)"),
            Case(query: "SELECT mean(open) FROM door"),
        ]
        return cases
    }
}
