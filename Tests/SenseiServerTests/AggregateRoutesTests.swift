import Testing
import SenseiModels
import SenseiTestSupport
@testable import SenseiServer

/// `GET /sensors/<id>/aggregates` on the real server: every minute and hour
/// row, paged however the client pages, equals what the readings alone give,
/// however they arrived (late, replaced, swept by retention).
@Suite("Aggregate routes", .serialized)
struct AggregateRoutesTests {
    static let minute: Int64 = 60_000
    static let hour: Int64 = 3_600_000
    static let day: Int64 = 86_400_000

    /// Six datasets on SQLite; two on PostgreSQL, where writing them one
    /// batch at a time takes most of a minute (the second pass's CI time).
    @Test(arguments: TestBackend.current == .postgresql ? [1, 2] : Array(1...6))
    func pagesEqualTheReadingsAtBothLevels(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let exact = seed % 2 == 0
        try await withTestServer { server in
            let times = try RandomDataset.insert(into: server.storage, code: "r", exactValues: exact, using: &random)
            let sensorID = try #require(try server.storage.sensor(.code("r"))).id
            for (level, width) in [("minute", Self.minute), ("hour", Self.hour)] {
                let expected = try Self.expected(server.storage, sensorID: sensorID, width: width)
                let limit = [1, 7, 100, 10_000].randomElement(using: &random)!
                let all = try await Self.fetchAll(server, level: level, after: nil, before: nil, limit: limit)
                expectSame(all, expected, exact: exact, "seed \(seed), \(level), limit \(limit)")
                // A window cut anywhere: rows whose start lies in it.
                let after = Int64.random(in: times.min()! - Self.hour...times.max()!, using: &random)
                let before = Int64.random(in: after...times.max()! + Self.hour, using: &random)
                let window = try await Self.fetchAll(server, level: level, after: after, before: before, limit: 500)
                expectSame(window, expected.filter { (after...before).contains($0.start.milliseconds) }, exact: exact,
                           "seed \(seed), \(level), [\(after), \(before)]")
            }
        }
    }

    /// Packed hours keep no minute rollups; their minutes, and the minute of
    /// an hour's extremes, come from the blocks. (Before, a packed hour had no
    /// minute rows at all and its extremes were put at the hour's start.)
    @Test(arguments: 1...3)
    func packedHoursAnswerAsReadings(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        try await withTestServer { server in
            _ = try RandomDataset.insert(into: server.storage, code: "r", exactValues: true, using: &random)
            let sensorID = try #require(try server.storage.sensor(.code("r"))).id
            let raw = try [Self.minute, Self.hour].map { try Self.expected(server.storage, sensorID: sensorID, width: $0) }
            let pass = try await server.compact(now: .now())
            #expect(pass.packedHours > 0)
            for ((level, width), expected) in zip([("minute", Self.minute), ("hour", Self.hour)], raw) {
                #expect(try Self.expected(server.storage, sensorID: sensorID, width: width) == expected)
                let limit = [1, 7, 100, 10_000].randomElement(using: &random)!
                await expectSame(try Self.fetchAll(server, level: level, after: nil, before: nil, limit: limit), expected,
                           exact: true, "packed, seed \(seed), \(level), limit \(limit)")
            }
        }
    }

    @Test func retentionAndLateReadingsShowInTheAggregates() async throws {
        try await withTestServer { server in
            let start: Int64 = 1_736_380_800_000
            let series = (0..<Int64(3 * 2_880)).map {
                ReadingInput(timestamp: Timestamp(milliseconds: start + $0 * 30_000), value: Double($0 % 97) - 40)
            }
            try await server.insertReadings(series, into: .code("k"), createIfMissing: true)
            // Late: a new low in an old hour, and a replaced value that was a minute's max.
            try await server.insertReadings([ReadingInput(timestamp: Timestamp(milliseconds: start + 5 * Self.hour + 7_000),
                                                          value: -1_000),
                                             ReadingInput(timestamp: Timestamp(milliseconds: start + 96 * 30_000), value: 0)],
                                            into: .code("k"), createIfMissing: false)
            _ = try server.storage.updateSensor(.code("k"), name: nil, units: nil, valueType: nil, retentionDays: 1,
                                                labels: nil, kind: nil, at: .now())
            let sweep = try server.storage.runRetentionSweep(now: Timestamp(milliseconds: start + 2 * Self.day + 30 * Self.minute),
                                                             betweenBatches: { true })
            #expect(sweep.deleted > 0)
            let sensorID = try #require(try server.storage.sensor(.code("k"))).id
            for (level, width) in [("minute", Self.minute), ("hour", Self.hour)] {
                let expected = try Self.expected(server.storage, sensorID: sensorID, width: width)
                #expect(expected.first!.start.milliseconds >= start + Self.day)
                await expectSame(try Self.fetchAll(server, code: "k", level: level, after: nil, before: nil, limit: 333), expected,
                           exact: true, "after retention, \(level)")
            }
            // The late low, before the cutoff, went with it; one after it shows to the minute.
            try await server.insertReadings([ReadingInput(timestamp: Timestamp(milliseconds: start + 40 * Self.hour + 61_000),
                                                          value: -2_000)], into: .code("k"), createIfMissing: false)
            let hour = try await Self.fetchAll(server, code: "k", level: "hour", after: start + 40 * Self.hour,
                                         before: start + 40 * Self.hour, limit: 10)
            #expect(hour.map(\.min) == [-2_000])
            #expect(hour.map(\.minAt.milliseconds) == [start + 40 * Self.hour + Self.minute])
        }
    }

    @Test func badParametersAreClearErrors() async throws {
        try await withTestServer { server in
            _ = try await server.writer.post("/sensors/p/data", json: #"{"value": 1}"#)
            let missing = try await server.reader.get("/sensors/p/aggregates")
            #expect(missing.status == 400 && missing.errorMessage == "level must be minute or hour, not ''")
            #expect(try await server.reader.get("/sensors/p/aggregates?level=day").errorMessage
                    == "level must be minute or hour, not 'day'")
            #expect(try await server.reader.get("/sensors/p/aggregates?level=hour&limit=0").status == 400)
            #expect(try await server.reader.get("/sensors/p/aggregates?level=hour&after=2&before=1").status == 400)
            #expect(try await server.reader.get("/sensors/nope/aggregates?level=hour").status == 404)
            #expect(try await server.anonymous.get("/sensors/p/aggregates?level=hour").status == 401)
            let one = try await server.reader.get("/sensors/p/aggregates?level=minute")
            #expect(one.status == 200)
            #expect(try one.json["data"]?.arrayValue?.count == 1)
        }
    }

    /// Pages through with `after` = last start + 1 ms, as a client syncing on does.
    static func fetchAll(_ server: TestServer, code: String = "r", level: String, after: Int64?, before: Int64?,
                         limit: Int) async throws -> [SpanAggregate] {
        var rows: [SpanAggregate] = []
        var after = after
        while true {
            var path = "/sensors/\(code)/aggregates?level=\(level)&limit=\(limit)"
            if let after { path += "&after=\(Timestamp(milliseconds: after).rfc3339)" }
            if let before { path += "&before=\(Timestamp(milliseconds: before).rfc3339)" }
            let response = try await server.reader.get(path)
            #expect(response.status == 200, "\(path): \(response.text)")
            let page = try #require(response.json["data"]?.arrayValue).map { try SpanAggregate(json: $0) }
            rows += page
            guard page.count == limit, let last = page.last else { return rows }
            after = last.start.milliseconds + 1
        }
    }

    /// Each row from the readings alone: the minute of an extreme is that of
    /// the first reading holding it.
    static func expected(_ store: any ReadingStore, sensorID: Int64, width: Int64) throws -> [SpanAggregate] {
        // Wherever they are kept (the server packs hours a day old into blocks
        // meanwhile), on either backend: its readings, oldest first.
        let readings = try store.readings(of: .id(sensorID), ReadingQuery(limit: 10_000_000, ascending: true)).1
            .map { ($0.timestamp.milliseconds, $0.value) }
        func floor(_ ts: Int64, _ step: Int64) -> Int64 { ts - ((ts % step) + step) % step }
        var rows: [SpanAggregate] = []
        for (ts, value) in readings {
            let start = Timestamp(milliseconds: floor(ts, width)), minute = Timestamp(milliseconds: floor(ts, minute))
            if rows.last?.start == start {
                var row = rows.removeLast()
                row.count += 1
                row.sum += value
                if value < row.min { row.min = value; row.minAt = minute }
                if value > row.max { row.max = value; row.maxAt = minute }
                rows.append(row)
            } else {
                rows.append(SpanAggregate(start: start, count: 1, sum: value, min: value, minAt: minute,
                                          max: value, maxAt: minute))
            }
        }
        return rows
    }
}

private func expectSame(_ actual: [SpanAggregate], _ expected: [SpanAggregate], exact: Bool, _ context: String,
                        sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(actual.count == expected.count, "\(context): \(actual.count) rows, expected \(expected.count)",
            sourceLocation: sourceLocation)
    for (a, e) in zip(actual, expected) {
        let scale = Double(e.count) * Swift.max(abs(e.min), abs(e.max))
        var same = a
        same.sum = e.sum
        let sumOK = exact ? a.sum == e.sum : nearlyEqual(a.sum, e.sum, scale: scale)
        #expect(same == e && sumOK, "\(context): \(a) != \(e)", sourceLocation: sourceLocation)
        if same != e || !sumOK { return }
    }
}
