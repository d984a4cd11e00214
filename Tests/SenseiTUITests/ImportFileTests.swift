import Foundation
import SenseiGzip
import SenseiModels
import SenseiTestSupport
import Testing
@testable import SenseiTUI
@testable import SenseiClient
@testable import SenseiTransfer

/// What `sensei import` does with awkward files, against a real server: bad
/// lines named by file and line while the rest goes in, CSV of both shapes,
/// a truncated gzip and a missing file as clear errors.
@Suite struct ImportFileTests {
    static func write(_ text: String, to path: String, gzip: Bool = false) throws {
        let bytes = Array(text.utf8)
        try Data(gzip ? GzipDeflater.deflate(bytes)! : bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test func badLinesAreNamedAndTheRestIsStored() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory + "/house.lp"
            try Self.write("""
                # written by hand
                room,name=den temp=21.5 1704067200000000000

                room,name=den temp=oops 1704067230000000000
                room,name=den temp=22,label="den" 1704067260000000000
                room,name=den 1704067290000000000
                room,name=den temp=22.5 1704067320000000000
                """, to: path)
            try await withTestServer { sensei in
                let summary = try await ImportRun(client: ImportChecks.client(sensei), concurrency: 1).run([path])
                #expect(summary.failed)
                #expect(summary.points == 3, "\(summary.text)")
                #expect(summary.refusals.map(\.line) == [4, 6], "\(summary.text)")
                #expect(summary.refusals.allSatisfy { $0.file == path })
                #expect(summary.skipped["string fields (not numbers)"] == 1)
                #expect(summary.problems.contains("\(path):4: ") && !summary.text.contains("\(path):4: "), "\(summary.problems)")
                #expect(try await ImportChecks.readings(of: sensei).count == 3)
            }
        }
    }

    @Test func csvOfBothShapes() async throws {
        try await withTemporaryDirectory { directory in
            try Self.write("timestamp,value\n2024-01-01T00:00:00Z,1.5\n2024-01-01T00:00:30.250Z,2\n1704067260,true\nnoon,3\n",
                           to: directory + "/one.csv")
            try Self.write("sensor,timestamp,value\nporch,2024-01-01T00:00:00Z,-3.25\nporch,1704067230,-3\nattic,2024-01-01T00:00:00Z,30\n",
                           to: directory + "/many.csv.gz", gzip: true)
            try await withTestServer { sensei in
                let one = try await ImportRun(client: ImportChecks.client(sensei), sensor: "den").run([directory + "/one.csv"])
                #expect(one.points == 3 && one.refusedCount == 1 && one.refusals.first?.line == 5, "\(one.text)")
                let many = try await ImportRun(client: ImportChecks.client(sensei)).run([directory + "/many.csv.gz"])
                #expect(!many.failed && many.points == 3 && many.sensorsCreated == 2, "\(many.text)")
                let stored = try await ImportChecks.readings(of: sensei)
                func key(_ code: String, _ ms: Int64) -> PointKey {
                    PointKey(series: SeriesKey(measurement: code, tags: [:], field: "value"), milliseconds: ms)
                }
                #expect(stored == [key("den", 1_704_067_200_000): 1.5, key("den", 1_704_067_230_250): 2,
                                   key("den", 1_704_067_260_000): 1, key("porch", 1_704_067_200_000): -3.25,
                                   key("porch", 1_704_067_230_000): -3, key("attic", 1_704_067_200_000): 30])
            }
        }
    }

    @Test func exportCSVWithAFilterAndBoundsReadsBack() async throws {
        try await withTemporaryDirectory { directory in
            try Self.write("sensor,timestamp,value\nporch,2024-01-01T00:00:00Z,-3.25\nporch,2024-01-01T00:00:30.5Z,-3\n"
                           + "porch,2024-01-01T00:01:00Z,-2\nattic,2024-01-01T00:00:00Z,30\n", to: directory + "/in.csv")
            try await withTestServer { sensei in
                // One batch at a time: porch is made first, so it is first (by id) in the export.
                _ = try await ImportRun(client: ImportChecks.client(sensei), concurrency: 1).run([directory + "/in.csv"])
                func export(_ filter: SensorFilter, after: Timestamp? = nil, before: Timestamp? = nil) async throws -> String {
                    let path = directory + "/out.csv"
                    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                    _ = try await ExportRun(client: ImportChecks.client(sensei), filter: filter, after: after, before: before)
                        .run(into: ExportWriter(format: .csv, descriptor: descriptor))
                    close(descriptor)
                    return try String(contentsOfFile: path, encoding: .utf8)
                }
                // Bounds inclusive, through the bulk route; a text filter pages the one sensor it picks.
                let bounded = try await export(SensorFilter(), after: Fixture.time("2024-01-01T00:00:00Z"),
                                               before: Fixture.time("2024-01-01T00:00:30.500Z"))
                #expect(bounded == """
                    sensor,timestamp,value
                    porch,2024-01-01T00:00:00Z,-3.25
                    porch,2024-01-01T00:00:30.500Z,-3
                    attic,2024-01-01T00:00:00Z,30

                    """, "\(bounded)")
                #expect(try await export(SensorFilter(text: "PORCH")) == """
                    sensor,timestamp,value
                    porch,2024-01-01T00:00:00Z,-3.25
                    porch,2024-01-01T00:00:30.500Z,-3
                    porch,2024-01-01T00:01:00Z,-2

                    """)
            }
        }
    }

    @Test func aTruncatedGzipAndAMissingFileAreClearErrors() async throws {
        try await withTemporaryDirectory { directory in
            let lines = (0..<20_000).map { "m value=\($0) \(1_704_067_200_000_000_000 + Int64($0) * 1_000_000_000)" }
            let whole = GzipDeflater.deflate(Array((lines.joined(separator: "\n") + "\n").utf8))!
            let path = directory + "/cut.lp.gz"
            try Data(whole.prefix(whole.count / 2)).write(to: URL(fileURLWithPath: path))
            try await withTestServer { sensei in
                let summary = try await ImportRun(client: ImportChecks.client(sensei)).run([path, directory + "/absent.lp"])
                #expect(summary.failed)
                #expect(summary.fileErrors.count == 2, "\(summary.text)")
                #expect(summary.fileErrors.first?.contains("cut.lp.gz: the gzip data ends early (truncated after") == true,
                        "\(summary.text)")
                #expect(summary.fileErrors.last == "\(directory)/absent.lp: cannot open: No such file or directory")
                // What came before the cut is stored, and said so.
                #expect(summary.points > 0 && summary.points < 20_000)
                #expect(try await ImportChecks.readings(of: sensei).count == summary.points)
            }
        }
    }

    @Test func formatsAreToldFromTheContent() throws {
        try withScratchDirectory { directory in
            try Self.write("# DDL\nCREATE DATABASE x WITH NAME autogen\n# DML\n# CONTEXT-DATABASE:x\nm,t=a v=1 1\n",
                           to: directory + "/a", gzip: true)
            try Self.write("sensor,timestamp,value\n", to: directory + "/b")
            try Self.write("2024-01-01T00:00:00Z,1\n", to: directory + "/c")
            try Self.write("hello\n", to: directory + "/d")
            #expect(try ImportFormat.detect(directory + "/a") == .lineProtocol)
            #expect(try ImportFormat.detect(directory + "/b") == .csv)
            #expect(try ImportFormat.detect(directory + "/c") == .csv)
            #expect(throws: ImportError.unknownFormat(directory + "/d")) { try ImportFormat.detect(directory + "/d") }
        }
    }
}
