/// Issue 38: how answers are written. Every `epoch` spelling (µ is U+00B5),
/// CSV (`Accept: application/csv`) with and without errors, and bodies of
/// several statements, one failing (InfluxDB runs nothing after it), in JSON,
/// chunked JSON and CSV.
extension InfluxQLDifferentialTests {
    static var protocolCases: [Case] {
        let (all, quarter, short) = (climateRanges[0], climateRanges[1], climateRanges[2])
        let ok = "SELECT count(temp) FROM climate WHERE \(all)"
        let failing = "SELECT mean(on) FROM climate WHERE \(all)"
        let invalid = "SELECT mean(temp), temp FROM climate"
        var cases: [Case] = []
        for epoch in ["n", "ns", "u", "\u{B5}", "ms", "s", "m", "h", "x", "U"] {
            cases += [
                Case(query: "SELECT temp FROM climate WHERE \(short)", epoch: epoch),
                Case(query: "SELECT mean(temp) FROM climate WHERE \(all) GROUP BY time(30m), room", epoch: epoch),
                Case(query: "SELECT percentile(hum, 50) FROM climate WHERE \(quarter)", epoch: epoch),
            ]
        }
        for epoch in [nil, "\u{B5}", "u", "ms", "s", "h"] {
            cases += [
                Case(query: "SELECT temp, hum FROM climate WHERE \(short)", epoch: epoch, csv: true),
                Case(query: "SELECT max(temp) FROM climate WHERE \(all) GROUP BY time(1h), room", epoch: epoch, csv: true),
            ]
        }
        cases += [
            // CSV: answers, empty answers and SHOW.
            Case(query: "SELECT * FROM climate WHERE \(short) GROUP BY *", csv: true),
            Case(query: "SELECT watts + energy FROM power WHERE \(short)", csv: true),
            Case(query: "SELECT mode(temp), percentile(hum, 90) FROM climate WHERE \(all) GROUP BY floor", csv: true),
            Case(query: "SELECT value FROM nothing_here", csv: true),
            Case(query: "SHOW MEASUREMENTS", csv: true),
            Case(query: "SHOW TAG VALUES FROM climate WITH KEY = room", csv: true),
            Case(query: "SHOW FIELD KEYS FROM climate", csv: true),
            Case(query: "\(ok); SHOW TAG KEYS FROM power", csv: true),
            // CSV: errors of the request and of a statement.
            Case(query: "SELEC temp FROM climate", csv: true),
            Case(query: "SELECT temp FROM", csv: true),
            Case(query: failing, csv: true),
            Case(query: invalid, csv: true),
            Case(query: "\(ok); \(failing)", csv: true),
            Case(query: "\(failing); \(ok)", csv: true),
            Case(query: "\(ok); \(failing); \(ok)", csv: true),
            Case(query: "\(ok); \(invalid); SHOW MEASUREMENTS", csv: true),
        ]
        // A failing statement among several: where it stands decides the answer.
        let bodies = [
            "\(failing); \(ok)",
            "\(ok); \(failing)",
            "\(ok); \(failing); \(ok)",
            "\(failing); \(ok); \(ok); \(ok)",
            "\(ok); \(ok); \(invalid); \(ok)",
            "\(ok); SELECT foo(temp) FROM climate; SHOW DATABASES",
            "SELECT percentile(temp) FROM climate; \(ok)",
            "\(ok); SELECT temp FROM climate GROUP BY time(1m); \(ok)",
            "\(ok); \(ok); SHOW MEASUREMENTS",
        ]
        for body in bodies {
            cases += [Case(query: body), Case(query: body, chunked: true)]
        }
        cases += [
            Case(query: "\(ok); \(failing); \(ok)", epoch: "\u{B5}"),
            Case(query: "\(ok); \(failing); \(ok)", epoch: "s", chunked: true),
        ]
        return cases
    }
}
