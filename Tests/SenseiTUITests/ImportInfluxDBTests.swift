import Foundation
import SenseiModels
import SenseiTestSupport
import Testing
@testable import SenseiTUI
@testable import SenseiClient
@testable import SenseiTransfer

/// The way out of InfluxDB and back in, with the real thing at both ends:
/// points written to Debian's InfluxDB 1.6, exported by the real
/// `influx_inspect export` (plain and `-compress`), imported with `sensei
/// import`'s code into a real server and compared point by point; then
/// `sensei export`'s line protocol written into a fresh InfluxDB database
/// and queried back: the same points.
@Suite(.serialized) struct ImportInfluxDBTests {
    /// Series of every kind the importer must carry: escapes in names and
    /// tags, integers, booleans, a string field (skipped), several fields a
    /// line, and sub-millisecond nanoseconds (Sensei keeps the millisecond).
    static func points(database: String) -> (lines: String, expected: [PointKey: Double]) {
        var generator = SplitMix64(seed: 26)
        var lines: [String] = []
        var expected: [PointKey: Double] = [:]
        let start: Int64 = 1_704_067_200_000  // 2024-01-01: old hours, which compaction packs
        for index in 0..<1500 {
            let ms = start + Int64(index) * 30_000
            let ns = String(ms) + String(format: "%06d", index % 7 == 0 ? 123_456 : 0)
            let temperature = (Double(generator.next() % 4000) / 100 - 10)
            let room = index % 2 == 0 ? "kitchen" : "living room"
            lines.append("temperature,room=\(room.replacingOccurrences(of: " ", with: "\\ ")) value=\(temperature) \(ns)")
            expected[PointKey(series: SeriesKey(measurement: "temperature", tags: ["room": room], field: "value"),
                              milliseconds: ms)] = temperature
            let watts = Double(generator.next() % 300_000) / 100
            let on = index % 3 != 0
            lines.append("power\\ meter,device=plug\\,1,site=a\\=b watts=\(watts),on=\(on),note=\"a \\\"quoted\\\" text\",count=\(index)i \(ns)")
            let tags = ["device": "plug,1", "site": "a=b"]
            expected[PointKey(series: SeriesKey(measurement: "power meter", tags: tags, field: "watts"), milliseconds: ms)] = watts
            expected[PointKey(series: SeriesKey(measurement: "power meter", tags: tags, field: "on"), milliseconds: ms)] = on ? 1 : 0
            expected[PointKey(series: SeriesKey(measurement: "power meter", tags: tags, field: "count"), milliseconds: ms)] = Double(index)
        }
        return (lines.joined(separator: "\n") + "\n", expected)
    }

    static func influx() async throws -> InfluxDBServer {
        switch await InfluxDBServer.forImportsStarted {
        case .success(let server): return server
        case .failure(let reason): throw reason
        }
    }

    static func createDatabase(_ influx: InfluxDBServer) async throws -> String {
        let database = "import_\(UInt32.random(in: 0...UInt32.max))"
        let created = try await influx.request("POST", "/query?q=CREATE%20DATABASE%20\(database)")
        precondition(created.status == 200, created.text)
        return database
    }

    @Test(arguments: [false, true]) func influxInspectExportImportsPointForPoint(compress: Bool) async throws {
        let influx = try await Self.influx()
        let database = try await Self.createDatabase(influx)
        let (lines, expected) = Self.points(database: database)
        let written = try await influx.request("POST", "/write?db=\(database)&precision=ns", body: Array(lines.utf8))
        #expect(written.status == 204, "\(written.text)")
        try await withTemporaryDirectory { directory in
            let file = directory + "/export.lp" + (compress ? ".gz" : "")
            let exported = try await InfluxInspect.export(influx, database: database, to: file, compress: compress)
            #expect(exported.status == 0, "\(exported.error)")
            let text = compress ? "" : try String(contentsOfFile: file, encoding: .utf8)
            if !compress {
                // What the importer must read past: the tool's own lines.
                #expect(text.contains("# DDL") && text.contains("# DML") && text.contains("CREATE DATABASE \(database)"))
                #expect(text.contains("# CONTEXT-DATABASE:"))
            }
            try await withTestServer { sensei in
                let run = ImportRun(client: ImportChecks.client(sensei))
                let summary = try await run.run([file])
                #expect(!summary.failed, "\(summary.text)")
                #expect(summary.points == expected.count, "\(summary.text)")
                #expect(summary.skipped["string fields (not numbers)"] == 1500)
                #expect(summary.sensorsCreated == 5)
                let stored = try await ImportChecks.readings(of: sensei)
                let differences = ImportChecks.differences(expected, stored)
                #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
                // The file's database is listed again, as Home Assistant and Grafana look for it.
                #expect(try await sensei.reader.get("/query?q=SHOW%20DATABASES").text.contains(database))

                // A re-run stores nothing twice.
                let again = try await run.run([file])
                #expect(!again.failed && again.sensorsCreated == 0)
                #expect(try await ImportChecks.readings(of: sensei).count == expected.count)
            }
        }
    }

    @Test func senseiExportReadsBackFromInfluxDB() async throws {
        let influx = try await Self.influx()
        let (lines, expected) = Self.points(database: "")
        try await withTemporaryDirectory { directory in
            try await withTestServer { sensei in
                let written = try await sensei.writer.request("POST", "/write?db=house&precision=ns", body: Array(lines.utf8))
                #expect(written.status == 204, "\(written.text)")
                // A REST sensor too: measurement = its code, field value, its labels as tags.
                #expect(try await sensei.admin.post("/sensors", json: #"{"code":"freezer","labels":{"room":"garage"}}"#).status == 201)
                #expect(try await sensei.writer.post("/sensors/freezer/data",
                                               json: #"{"data":[{"timestamp":1704067200,"value":-18.25},{"timestamp":1704067230.5,"value":-18}]}"#).status == 201)
                var all = expected
                let freezer = SeriesKey(measurement: "freezer", tags: ["room": "garage"], field: "value")
                all[PointKey(series: freezer, milliseconds: 1_704_067_200_000)] = -18.25
                all[PointKey(series: freezer, milliseconds: 1_704_067_230_500)] = -18

                let file = directory + "/sensei.lp"
                let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                let writer = ExportWriter(format: .lineProtocol, descriptor: descriptor)
                let (sensors, points) = try await ExportRun(client: ImportChecks.client(sensei), filter: SensorFilter())
                    .run(into: writer)
                close(descriptor)
                #expect(sensors == 6 && points == all.count)

                let database = try await Self.createDatabase(influx)
                let body = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
                let loaded = try await influx.request("POST", "/write?db=\(database)&precision=ns", body: body)
                #expect(loaded.status == 204, "\(loaded.text)")
                let read = try await Self.influxPoints(influx, database: database)
                let differences = ImportChecks.differences(all, read)
                #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")

                // And `sensei import` of it into a new server: the same readings again.
                try await withTestServer { second in
                    let summary = try await ImportRun(client: ImportChecks.client(second)).run([file])
                    #expect(!summary.failed && summary.points == all.count, "\(summary.text)")
                    let again = try await ImportChecks.readings(of: second)
                    // REST sensors come back as line-protocol series: same measurement, tags, field and readings.
                    #expect(ImportChecks.differences(all, again).isEmpty)
                }
            }
        }
    }

    /// Every point of a database, by series, from InfluxDB itself.
    static func influxPoints(_ influx: InfluxDBServer, database: String) async throws -> [PointKey: Double] {
        let measurements = try await influx.request("GET", "/query?db=\(database)&q=SHOW%20MEASUREMENTS").json
        var points: [PointKey: Double] = [:]
        for row in measurements["results"]?[0]?["series"]?[0]?["values"]?.arrayValue ?? [] {
            let name = row[0]!.stringValue!
            let query = "SELECT * FROM \"\(name.replacingOccurrences(of: "\"", with: "\\\""))\" GROUP BY *"
            let encoded = query.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let answer = try await influx.request("GET", "/query?db=\(database)&epoch=ms&q=\(encoded)").json
            for series in answer["results"]?[0]?["series"]?.arrayValue ?? [] {
                let tags = (series["tags"]?.objectValue ?? [:]).compactMapValues { $0.stringValue }.filter { !$0.value.isEmpty }
                let columns = series["columns"]!.arrayValue!.map { $0.stringValue! }
                for row in series["values"]!.arrayValue! {
                    let ms = Int64(row[0]!.doubleValue!)
                    for (index, column) in columns.enumerated().dropFirst() {
                        let value: Double
                        if let number = row[index]?.doubleValue { value = number }
                        else if let flag = row[index]?.boolValue { value = flag ? 1 : 0 }
                        else { continue }
                        points[PointKey(series: SeriesKey(measurement: name, tags: tags, field: column), milliseconds: ms)] = value
                    }
                }
            }
        }
        return points
    }
}
