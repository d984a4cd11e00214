import Foundation
import Testing
import SenseiModels
import SenseiTestSupport
@testable import SenseiServer

/// `GET /readings` and `GET /aggregates`: every sensor in one paged read, on
/// the real server. Whatever the page size, the pages put together are each
/// sensor's range exactly as its own route gives it.
@Suite("Bulk routes", .serialized)
struct BulkRoutesTests {
    static let minute: Int64 = 60_000
    static let hour: Int64 = 3_600_000
    static let day: Int64 = 86_400_000

    /// One reading, or one aggregate, as the bulk route gave it.
    struct Item: Equatable, CustomStringConvertible {
        var sensorID: Int64
        var code: String
        var item: JSONValue
        var description: String { "\(code)#\(sensorID) \(item)" }
    }

    /// Three sensors, one split over packed hours and rows, one silent
    /// before the range, one with no reading at all; paged with limits
    /// from 1 (a sensor over many pages) to more than everything.
    @Test(arguments: [1, 2, 7, 100, 100_000])
    func pagesPutTogetherAreEverySensorsReadings(limit: Int) async throws {
        try await withTestServer { server in
            let now = Timestamp.now().milliseconds
            let start = RollupLevel.hour.start(of: now) - 3 * Self.day
            var random = SplitMix64(seed: UInt64(limit))
            try Self.insert(server, "alpha", (0..<40).map { start + $0 * 7 * Self.minute }, using: &random)
            try Self.insert(server, "beta", (0..<5).map { now - 60_000 + $0 * 1000 }, using: &random)
            try Self.insert(server, "old", [start - 10 * Self.day], using: &random)
            _ = try server.storage.createSensor(code: "empty", name: nil, units: "", valueType: .float, retentionDays: nil,
                                                labels: [:], kind: .gauge, at: .now())
            try Self.insert(server, "gamma", (0..<30).map { start + Self.day + $0 * 13 * Self.minute }, using: &random)
            #expect(try await server.compact(now: .now()).packedHours > 0)

            let after = start - Self.day
            let expected = try await Self.expectedReadings(server, codes: ["alpha", "beta", "gamma"], after: after, before: nil)
            #expect(expected.count == 75)
            let (items, pages) = try await Self.fetchAll(server.reader, "/readings?after=\(Self.rfc3339(after))", limit: limit)
            #expect(items == expected, "limit \(limit)")
            // No empty last page: a page ending with the last reading says null.
            #expect(pages == (expected.count + limit - 1) / limit, "limit \(limit): \(pages) pages")
            // Without bounds, the old sensor's reading is in too, in id order.
            let (everything, _) = try await Self.fetchAll(server.reader, "/readings", limit: limit)
            #expect(everything == (try await Self.expectedReadings(server, codes: ["alpha", "beta", "old", "gamma"],
                                                             after: nil, before: nil)))
        }
    }

    /// Small sensors on either side of a large one, in pages large enough
    /// to take all three at once: PostgreSQL reads such sensors in one
    /// statement, a sensor's share of it at most 16,384 rows and packed
    /// hours, and walks the rest of a larger one on its own. Pages that end
    /// inside that rest, and inside the sensor after it, go on from there.
    @Test(arguments: [100_000, 20_000, 16_390, 50])
    func aLargeSensorAmongSmallOnesIsReadWhole(limit: Int) async throws {
        try await withTestServer { server in
            let now = Timestamp.now().milliseconds
            let start = RollupLevel.hour.start(of: now) - 3 * Self.day
            var random = SplitMix64(seed: 77)
            try Self.insert(server, "small1", [start, start + 1_000, now - 5_000], using: &random)
            try Self.insert(server, "big", (0..<3_000).map { start + $0 * 40_000 }, using: &random)
            try Self.insert(server, "big", (0..<20_000).map { now - 30 * Self.minute + $0 * 80 }, using: &random)
            try Self.insert(server, "small2", (0..<4).map { start + $0 * Self.hour }, using: &random)
            #expect(try await server.compact(now: .now()).packedHours > 0)

            var expected: [Item] = []
            for code in ["small1", "big", "small2"] {
                let (sensor, readings) = try server.storage.readings(of: .code(code),
                                                                     ReadingQuery(limit: 1_000_000, ascending: true))
                expected += try readings.map { reading in
                    var writer = JSONWriter()
                    reading.write(to: &writer)
                    return Item(sensorID: sensor.id, code: code, item: try JSONParser.parse(writer.bytes))
                }
            }
            #expect(expected.count == 23_007)
            let (items, pages) = try await Self.fetchAll(server.reader, "/readings", limit: limit)
            #expect(items.count == expected.count, "limit \(limit)")
            // The first difference only: 23,007 items do not fit a message.
            if let index = items.indices.first(where: { $0 < expected.count && items[$0] != expected[$0] }) {
                Issue.record("limit \(limit): item \(index) is \(items[index]), not \(expected[index])")
            }
            #expect(pages == (expected.count + limit - 1) / limit)
        }
    }

    /// A limit that ends a page exactly at a sensor's last reading: the next
    /// page starts with the next sensor, and the last page says null.
    @Test func aPageEndingWithASensorContinuesWithTheNext() async throws {
        try await withTestServer { server in
            let base: Int64 = 1_736_424_000_000
            var random = SplitMix64(seed: 9)
            try Self.insert(server, "a", [base, base + 1000], using: &random)
            try Self.insert(server, "b", [base, base + 1000], using: &random)
            let first = try await server.reader.get("/readings?limit=2").json
            #expect(first["series"]?.arrayValue?.map { $0["code"] } == [.string("a")])
            let next = try #require(first["next"]?.stringValue)
            let second = try await server.reader.get("/readings?limit=2&cursor=\(next)").json
            #expect(second["series"]?.arrayValue?.map { $0["code"] } == [.string("b")])
            #expect(second["series"]?[0]?["data"]?.arrayValue?.count == 2)
            #expect(second["next"] == .null)
            let all = try await server.reader.get("/readings").json
            #expect(all["next"] == .null)
            let idOfA = try #require(try server.storage.sensor(.code("a"))).id
            #expect(all["series"]?[0] == .object([
                "id": .number(Double(idOfA)), "code": .string("a"),
                "data": .array([.object(["timestamp": .string("2025-01-09T12:00:00Z"), "value": first["series"]![0]!["data"]![0]!["value"]!]),
                                .object(["timestamp": .string("2025-01-09T12:00:01Z"), "value": first["series"]![0]!["data"]![1]!["value"]!])]),
            ]))
        }
    }

    @Test func boundsAreInclusive() async throws {
        try await withTestServer { server in
            let base: Int64 = 1_736_424_000_000
            var random = SplitMix64(seed: 3)
            try Self.insert(server, "a", [base - 1, base, base + 500, base + 1000, base + 1001], using: &random)
            try Self.insert(server, "b", [base + 1000], using: &random)
            for query in ["after=2025-01-09T12:00:00Z&before=2025-01-09T12:00:01Z", "after=1736424000&before=1736424001"] {
                let page = try await server.reader.get("/readings?\(query)").json
                let series = try #require(page["series"]?.arrayValue)
                #expect(series.map { $0["code"] } == [.string("a"), .string("b")])
                #expect(series[0]["data"]?.arrayValue?.compactMap { $0["timestamp"]?.stringValue }
                            == ["2025-01-09T12:00:00Z", "2025-01-09T12:00:00.500Z", "2025-01-09T12:00:01Z"])
                #expect(series[1]["data"]?.arrayValue?.count == 1)
            }
            // `after` past a sensor's newest: it is absent, not an empty series.
            let later = try await server.reader.get("/readings?after=2025-01-09T12:00:01.001Z").json
            #expect(later["series"]?.arrayValue?.map { $0["code"] } == [.string("a")])
            #expect(try await server.reader.get("/readings?after=2026-01-01T00:00:00Z").json
                        == .object(["series": .array([]), "next": .null]))
        }
    }

    @Test func labelsFilterAsTheSensorList() async throws {
        try await withTestServer { server in
            for (code, labels) in [("k1", #"{"room":"kitchen","kind":"temp"}"#), ("h1", #"{"room":"hall","kind":"temp"}"#),
                                   ("k2", #"{"room":"kitchen","kind":"hum"}"#)] {
                #expect(try await server.admin.post("/sensors", json: #"{"code":"\#(code)","labels":\#(labels)}"#).status == 201)
                #expect(try await server.writer.post("/sensors/\(code)/data", json: #"{"value":1}"#).status == 201)
            }
            func codes(_ query: String) async throws -> [String] {
                let page = try await server.reader.get("/readings?\(query)")
                #expect(page.status == 200, "\(page.text)")
                return try page.json["series"]?.arrayValue?.compactMap { $0["code"]?.stringValue } ?? []
            }
            #expect(try await codes("label=room:kitchen") == ["k1", "k2"])
            #expect(try await codes("label=room:kitchen&label=kind:temp") == ["k1"])
            #expect(try await codes("label=room:cellar").isEmpty)
            #expect(try await codes("") == ["k1", "h1", "k2"])
            let aggregates = try await server.reader.get("/aggregates?level=minute&label=kind:temp").json
            #expect(aggregates["series"]?.arrayValue?.compactMap { $0["code"]?.stringValue } == ["k1", "h1"])
            #expect(try await server.reader.get("/readings?label=nocolon").status == 400)
        }
    }

    @Test func badParametersAre400sNamingThem() async throws {
        try await withTestServer { server in
            for path in ["/readings", "/aggregates?level=hour"] {
                let join = path.contains("?") ? "&" : "?"
                for cursor in ["x", "1", "1:", ":5", "0:5", "-3:5", "1:5:6", "1:abc", "1:99999999999999999"] {
                    let answer = try await server.reader.get("\(path)\(join)cursor=\(cursor)")
                    #expect(answer.status == 400, "\(path) cursor \(cursor)")
                    #expect(answer.errorMessage == "cursor must be the 'next' of the previous page, not '\(cursor)'")
                }
                for limit in ["0", "100001", "ten", "-1"] {
                    let answer = try await server.reader.get("\(path)\(join)limit=\(limit)")
                    #expect(answer.status == 400)
                    #expect(answer.errorMessage == "limit must be a whole number from 1 to 100000, not '\(limit)'")
                }
                #expect(try await server.reader.get("\(path)\(join)limit=100000").status == 200)
                #expect(try await server.reader.get("\(path)\(join)after=soon").errorMessage?.hasPrefix("after must be") == true)
                #expect(try await server.reader.get("\(path)\(join)after=2025-01-02T00:00:00Z&before=2025-01-01T00:00:00Z").status == 400)
                #expect(try await server.anonymous.get(path).status == 401)
            }
            for level in ["", "level=day", "level=Minute"] {
                let answer = try await server.reader.get("/aggregates?\(level)")
                #expect(answer.status == 400)
                #expect(answer.errorMessage?.hasPrefix("level must be minute or hour") == true, "\(answer.text)")
            }
            #expect(try await server.writer.post("/readings", json: "{}").status == 405)
        }
    }

    /// Each sensor's rows, paged across sensors with any limit, are the
    /// rows its own aggregates route gives, packed hours and the tail past
    /// the rollup frontier included.
    @Test(arguments: [1, 5, 1000])
    func aggregatesAreThePerSensorRoutes(limit: Int) async throws {
        try await withTestServer { server in
            let now = Timestamp.now().milliseconds
            let start = RollupLevel.hour.start(of: now) - 2 * Self.day
            var random = SplitMix64(seed: UInt64(limit) + 100)
            try Self.insert(server, "p", (0..<300).map { start + $0 * 97_000 }, using: &random)
            try Self.insert(server, "q", (0..<50).map { now - 50 * 30_000 + $0 * 30_000 }, using: &random)
            try Self.insert(server, "r", (0..<200).map { start + Self.day + $0 * 41_000 }, using: &random)
            _ = try await server.compact(now: .now())
            let after = start + 3 * Self.hour + 17_000
            for level in ["minute", "hour"] {
                for window in ["", "&after=\(Self.rfc3339(after))", "&after=\(Self.rfc3339(after))&before=\(Self.rfc3339(now - Self.hour))"] {
                    var expected: [Item] = []
                    for code in ["p", "q", "r"] {
                        let sensor = try #require(try server.storage.sensor(.code(code)))
                        let rows = try await server.reader.get("/sensors/\(code)/aggregates?level=\(level)&limit=10000\(window)")
                        #expect(rows.status == 200)
                        expected += try rows.json["data"]?.arrayValue?.map { Item(sensorID: sensor.id, code: code, item: $0) } ?? []
                    }
                    #expect(!expected.isEmpty)
                    let (items, _) = try await Self.fetchAll(server.reader, "/aggregates?level=\(level)\(window)", limit: limit,
                                                       items: "aggregates")
                    #expect(items == expected, "\(level) \(window) limit \(limit)")
                }
            }
        }
    }

    /// 10,000 sensors (the default `--max-sensors`) of a few readings each,
    /// most silent since before the range: pages answer quickly. The bound is
    /// generous, only to catch a per-sensor cost gone wrong.
    @Test func tenThousandSensorsAnswerQuickly() async throws {
        try await withTestServer { server in
            let now = Timestamp.now().milliseconds
            var points: [SeriesPoint] = []
            for index in 0..<10_000 {
                let series = Series(identity: SeriesIdentity(source: "bulk", parts: ["s\(index)"]),
                                    preferredCode: "s\(index)")
                // One in ten wrote in the last hour; the others a day ago.
                let newest = index % 10 == 0 ? now - 60_000 : now - Self.day
                for step in 0..<3 {
                    points.append(SeriesPoint(series: series, value: Double(index) + Double(step) / 10,
                                              timestamp: Timestamp(milliseconds: newest - Int64(step) * 60_000)))
                }
            }
            for chunk in stride(from: 0, to: points.count, by: 6_000) {
                try await server.storage.ingestCommitted(Array(points[chunk..<min(chunk + 6_000, points.count)]))
            }
            #expect(try server.storage.sensors().count == 10_000)

            var timings: [String] = []
            func timed(_ name: String, _ path: String, expecting items: Int) async throws {
                let clock = ContinuousClock()
                var pages = 0
                var seen = 0
                let elapsed = try await clock.measure {
                    var cursor: String?
                    repeat {
                        let page = try await server.reader.get(path + (cursor.map { "&cursor=\($0)" } ?? ""))
                        #expect(page.status == 200)
                        let json = try page.json
                        seen += json["series"]?.arrayValue?.reduce(0) {
                            $0 + ($1["data"] ?? $1["aggregates"])!.arrayValue!.count
                        } ?? 0
                        cursor = json["next"]?.stringValue
                        pages += 1
                    } while cursor != nil && pages < 100
                }
                #expect(seen == items, "\(name)")
                timings.append("\(name): \(pages) pages in \(elapsed)")
                #expect(elapsed < .seconds(30), "\(name)")
            }
            try await timed("all readings", "/readings?limit=10000", expecting: 30_000)
            try await timed("last hour", "/readings?after=\(Self.rfc3339(now - Self.hour))", expecting: 3_000)
            try await timed("minute aggregates", "/aggregates?level=minute&limit=10000", expecting: 30_000)
            print("bulk, 10,000 sensors: " + timings.joined(separator: "; "))
        }
    }

    // MARK: - Helpers

    static func rfc3339(_ milliseconds: Int64) -> String {
        Timestamp(milliseconds: milliseconds).description
    }

    static func insert(_ server: TestServer, _ code: String, _ times: [Int64], using random: inout SplitMix64) throws {
        let readings = times.map {
            ReadingInput(timestamp: Timestamp(milliseconds: $0), value: Double(Int64.random(in: -500...500, using: &random)) / 4)
        }
        try server.insertReadings(readings, into: .code(code), createIfMissing: true)
    }

    /// Each sensor's readings in the range through its own route, in the
    /// order given (sensors are created in that order, so in id order).
    static func expectedReadings(_ server: TestServer, codes: [String], after: Int64?, before: Int64?) async throws -> [Item] {
        var items: [Item] = []
        for code in codes {
            let sensor = try #require(try server.storage.sensor(.code(code)))
            var path = "/sensors/\(code)/data?order=asc&limit=10000"
            if let after { path += "&after=\(rfc3339(after))" }
            if let before { path += "&before=\(rfc3339(before))" }
            items += try await server.reader.get(path).json["data"]?.arrayValue?.map {
                Item(sensorID: sensor.id, code: code, item: $0)
            } ?? []
        }
        return items
    }

    /// Every page of `path` with `limit`, following `next`: the items in
    /// order and the number of pages. Each page holds at most `limit`, and
    /// a sensor appears at most once in it.
    static func fetchAll(_ client: TestHTTPClient, _ path: String, limit: Int,
                         items key: String = "data") async throws -> ([Item], Int) {
        var items: [Item] = []
        var cursor: String?
        var pages = 0
        repeat {
            let join = path.contains("?") ? "&" : "?"
            let answer = try await client.get("\(path)\(join)limit=\(limit)" + (cursor.map { "&cursor=\($0)" } ?? ""))
            #expect(answer.status == 200, "\(answer.text)")
            let page = try answer.json
            let series = try #require(page["series"]?.arrayValue)
            var count = 0
            for entry in series {
                let id = Int64(try #require(entry["id"]?.intValue))
                let list = try #require(entry[key]?.arrayValue)
                #expect(!list.isEmpty, "a series without items")
                count += list.count
                items += list.map { Item(sensorID: id, code: entry["code"]?.stringValue ?? "", item: $0) }
            }
            #expect(count <= limit)
            #expect(Set(series.compactMap { $0["id"]?.intValue }).count == series.count)
            cursor = page["next"]?.stringValue
            pages += 1
            guard pages <= 10_000 else { Issue.record("more than 10,000 pages"); break }
        } while cursor != nil
        return (items, pages)
    }
}
