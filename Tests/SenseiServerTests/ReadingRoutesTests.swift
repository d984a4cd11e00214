import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

@Suite("Reading routes")
struct ReadingRoutesTests {
    @Test func singleReadingForms() async throws {
        try await withTestServer { server in
            let number = try await server.writer.post("/sensors/t/data", json: #"{"value": 23.5}"#)
            #expect(number.status == 201)
            #expect(number.text == #"{"accepted":1}"#)
            let string = try await server.writer.post(
                "/sensors/t/data", json: #"{"value": "21.25", "timestamp": "2025-01-09T12:00:00Z"}"#)
            #expect(string.status == 201)
            let boolean = try await server.writer.post("/sensors/t/data", json: #"{"value": true, "timestamp": 1736424060}"#)
            #expect(boolean.status == 201)
            let epoch = try await server.writer.post(
                "/sensors/t/data", json: #"{"value": -4, "timestamp": 1736424000.123}"#)
            #expect(epoch.status == 201)

            let data = try await server.reader.get("/sensors/t/data?order=asc&before=2026-01-01T00:00:00Z").text
            #expect(data == """
                {"data":[{"timestamp":"2025-01-09T12:00:00Z","value":21.25},\
                {"timestamp":"2025-01-09T12:00:00.123Z","value":-4},\
                {"timestamp":"2025-01-09T12:01:00Z","value":1}]}
                """)
            #expect(try await server.reader.get("/sensors/t").json["count"] == .number(4))
        }
    }

    @Test func batchIsStoredAndCounted() async throws {
        try await withTestServer { server in
            let response = try await server.writer.post("/sensors/power/data", json: """
                {"data": [{"timestamp": 1736424000, "value": 23.1}, {"timestamp": "2025-01-09T12:00:01Z", "value": 23.2}]}
                """)
            #expect(response.status == 201)
            #expect(response.text == #"{"accepted":2}"#)
            let sensor = try await Sensor(json: try server.reader.get("/sensors/power").json)
            #expect(sensor.count == 2)
            #expect(sensor.latest == Reading(timestamp: Timestamp(rfc3339: "2025-01-09T12:00:01Z")!, value: 23.2))
        }
    }

    @Test func retriedBatchIsStoredOnceAndLaterValueWins() async throws {
        try await withTestServer { server in
            let batch = #"{"data":[{"timestamp":100,"value":1},{"timestamp":200,"value":2},{"timestamp":300,"value":3}]}"#
            #expect(try await server.writer.post("/sensors/retry/data", json: batch).status == 201)
            #expect(try await server.writer.post("/sensors/retry/data", json: batch).status == 201)
            #expect(try await server.reader.get("/sensors/retry").json["count"] == .number(3))

            #expect(try await server.writer.post("/sensors/retry/data", json: #"{"timestamp":300,"value":30}"#).status == 201)
            // Within one batch too: the later item wins.
            #expect(try await server.writer.post(
                "/sensors/retry/data", json: #"{"data":[{"timestamp":200,"value":7},{"timestamp":200,"value":8}]}"#).status == 201)
            let sensor = try await server.reader.get("/sensors/retry").json
            #expect(sensor["count"] == .number(3))
            #expect(sensor["latest"]?["value"] == .number(30))
            #expect(try await server.reader.get("/sensors/retry/data?order=asc").text == """
                {"data":[{"timestamp":"1970-01-01T00:01:40Z","value":1},{"timestamp":"1970-01-01T00:03:20Z","value":8},\
                {"timestamp":"1970-01-01T00:05:00Z","value":30}]}
                """)
        }
    }

    @Test func receiveTimeReadingsNeverCollide() async throws {
        try await withTestServer { server in
            let response = try await server.writer.post(
                "/sensors/burst/data", json: #"{"data":[{"value":1},{"value":2},{"value":3}]}"#)
            #expect(response.status == 201)
            let readings = try await server.reader.get("/sensors/burst/data?order=asc").json["data"]!.arrayValue!
            let times = readings.compactMap { $0["timestamp"]?.stringValue.flatMap(Timestamp.init(rfc3339:)) }
            #expect(readings.map { $0["value"] } == [.number(1), .number(2), .number(3)])
            #expect(times.count == 3)
            #expect(times[1].milliseconds - times[0].milliseconds == 1)
            #expect(times[2].milliseconds - times[1].milliseconds == 1)
            let now = Timestamp.now().milliseconds
            #expect(abs(now - times[0].milliseconds) < 10_000)
        }
    }

    @Test func listingBoundsLimitAndOrder() async throws {
        try await withTestServer { server in
            let items = (0..<250).map { #"{"timestamp":\#(1_000_000 + $0),"value":\#($0)}"# }
            #expect(try await server.writer.post("/sensors/s/data", json: #"{"data":[\#(items.joined(separator: ","))]}"#).status == 201)

            let newest = try await server.reader.get("/sensors/s/data").json["data"]!.arrayValue!
            #expect(newest.count == 100)
            #expect(newest.first?["value"] == .number(249))
            #expect(newest.last?["value"] == .number(150))

            // Bounds are inclusive, in RFC 3339 or epoch seconds.
            let window = try await server.reader.get(
                "/sensors/s/data?after=1000010&before=1970-01-12T13:46:52Z&order=asc").json["data"]!.arrayValue!
            #expect(window.map { $0["value"]!.intValue! } == [10, 11, 12])
            let asc = try await server.reader.get("/sensors/s/data?order=asc&limit=5").json["data"]!.arrayValue!
            #expect(asc.map { $0["value"]!.intValue! } == [0, 1, 2, 3, 4])
            let all = try await server.reader.get("/sensors/s/data?limit=10000").json["data"]!.arrayValue!
            #expect(all.count == 250)
        }
    }

    @Test func pagingFromTheLastTimestampSeesEverythingOnce() async throws {
        try await withTestServer { server in
            let items = (0..<95).map { #"{"timestamp":\#(2_000_000 + $0 * 7),"value":\#($0)}"# }
            _ = try await server.writer.post("/sensors/p/data", json: #"{"data":[\#(items.joined(separator: ","))]}"#)
            var seen: [Int] = []
            var after = "0"
            while true {
                let page = try await server.reader.get("/sensors/p/data?order=asc&limit=20&after=\(after)").json["data"]!.arrayValue!
                if page.isEmpty { break }
                seen += page.map { $0["value"]!.intValue! }
                let last = Timestamp(rfc3339: page.last!["timestamp"]!.stringValue!)!
                after = last.adding(milliseconds: 1).rfc3339
            }
            #expect(seen == Array(0..<95))
        }
    }

    @Test func bucketsMatchHandComputedValues() async throws {
        try await withTestServer { server in
            // 1970-01-01T00:00:00Z .. 00:01:00Z, cut in 3 spans of 20 s; the
            // reading exactly at `before` counts in the last one.
            _ = try await server.writer.post("/sensors/b/data", json: """
                {"data":[{"timestamp":0,"value":1},{"timestamp":5,"value":3},{"timestamp":25,"value":10},
                {"timestamp":39.999,"value":20},{"timestamp":59.999,"value":-2},{"timestamp":60,"value":1000},
                {"timestamp":60.001,"value":5000}]}
                """)
            let three = try await server.reader.get("/sensors/b/data?buckets=3&after=0&before=60")
            #expect(three.status == 200)
            #expect(three.text == """
                {"data":[{"timestamp":"1970-01-01T00:00:00Z","value":2,"min":1,"max":3,"count":2},\
                {"timestamp":"1970-01-01T00:00:20Z","value":15,"min":10,"max":20,"count":2},\
                {"timestamp":"1970-01-01T00:00:40Z","value":499,"min":-2,"max":1000,"count":2}]}
                """)
            // Six spans of 10 s: empty spans are left out.
            let six = try await server.reader.get("/sensors/b/data?buckets=6&after=0&before=60").json["data"]!.arrayValue!
            #expect(six.map { $0["timestamp"]!.stringValue! } == [
                "1970-01-01T00:00:00Z", "1970-01-01T00:00:20Z", "1970-01-01T00:00:30Z", "1970-01-01T00:00:50Z",
            ])
            #expect(six.map { $0["count"]!.intValue! } == [2, 1, 1, 2])
            #expect(six[1]["value"] == .number(10))
        }
    }

    /// Regression: spans were `(before - after + 1) / N` wide, so an hour in
    /// 6 buckets started them at :10:00.001, :20:00.001 and so on.
    @Test func anHourInSixBucketsStartsSpansOnTheTenMinutes() async throws {
        try await withTestServer { server in
            _ = try await server.writer.post("/sensors/h/data", json: """
                {"data":[{"timestamp":"2025-01-09T12:00:00Z","value":1},{"timestamp":"2025-01-09T12:10:00Z","value":2},
                {"timestamp":"2025-01-09T12:59:59.999Z","value":3},{"timestamp":"2025-01-09T13:00:00Z","value":4}]}
                """)
            let buckets = try await server.reader.get(
                "/sensors/h/data?buckets=6&after=2025-01-09T12:00:00Z&before=2025-01-09T13:00:00Z").json["data"]!.arrayValue!
            #expect(buckets.map { $0["timestamp"]!.stringValue! } == [
                "2025-01-09T12:00:00Z", "2025-01-09T12:10:00Z", "2025-01-09T12:50:00Z",
            ])
            #expect(buckets.map { $0["count"]!.intValue! } == [1, 1, 2])
        }
    }

    @Test func bucketTimestampIsTheFirstMillisecondOfItsSpan() async throws {
        try await withTestServer { server in
            // [0, 1000] ms in 3 spans of 333.3 ms: 0–333, 334–666, 667–1000.
            _ = try await server.writer.post("/sensors/u/data", json: """
                {"data":[{"timestamp":0.333,"value":1},{"timestamp":0.334,"value":2},{"timestamp":1,"value":3}]}
                """)
            let buckets = try await server.reader.get("/sensors/u/data?buckets=3&after=0&before=1").json["data"]!.arrayValue!
            #expect(buckets.map { $0["timestamp"]!.stringValue! } == [
                "1970-01-01T00:00:00Z", "1970-01-01T00:00:00.334Z", "1970-01-01T00:00:00.667Z",
            ])
            #expect(buckets.map { $0["value"]!.intValue! } == [1, 2, 3])
            // One instant is one span.
            let instant = try await server.reader.get("/sensors/u/data?buckets=5&after=1&before=1").json["data"]!.arrayValue!
            #expect(instant.map { $0["count"]!.intValue! } == [1])
        }
    }

    @Test func csvExport() async throws {
        try await withTestServer { server in
            _ = try await server.writer.post("/sensors/c/data", json: """
                {"data":[{"timestamp":"2025-01-09T12:00:00Z","value":23.5},{"timestamp":"2025-01-09T12:00:30.250Z","value":-1}]}
                """)
            let csv = try await server.reader.get("/sensors/c/data.csv")
            #expect(csv.status == 200)
            #expect(csv.headers["content-type"] == "text/csv; charset=utf-8")
            #expect(csv.text == "timestamp,value\n2025-01-09T12:00:30.250Z,-1\n2025-01-09T12:00:00Z,23.5\n")
            let buckets = try await server.reader.get(
                "/sensors/c/data.csv?buckets=1&after=2025-01-09T12:00:00Z&before=2025-01-09T12:01:00Z")
            #expect(buckets.text == "timestamp,value,min,max,count\n2025-01-09T12:00:00Z,11.25,-1,23.5,2\n")
            #expect(try await server.reader.get("/sensors/nope/data.csv").status == 404)
        }
    }

    @Test func valueTypesAreEnforced() async throws {
        try await withTestServer { server in
            _ = try await server.admin.post("/sensors", json: #"{"code":"count","valueType":"int"}"#)
            _ = try await server.admin.post("/sensors", json: #"{"code":"door","valueType":"bool"}"#)
            #expect(try await server.writer.post("/sensors/count/data", json: #"{"value":"12"}"#).status == 201)
            let fraction = try await server.writer.post("/sensors/count/data", json: #"{"data":[{"value":1},{"value":2.5}]}"#)
            #expect(fraction.status == 422)
            #expect(fraction.errorMessage == "data[1].value: 2.5 is not a whole number")
            #expect(try await server.writer.post("/sensors/door/data", json: #"{"value":false}"#).status == 201)
            let notBool = try await server.writer.post("/sensors/door/data", json: #"{"value":2}"#)
            #expect(notBool.errorMessage == "value: 2 is not a boolean (0 or 1)")
            #expect(try await server.reader.get("/sensors/count").json["count"] == .number(1))
        }
    }

    @Test func postingByUnknownIdIs404ButUnknownCodeCreates() async throws {
        try await withTestServer { server async throws in
            #expect(try await server.writer.post("/sensors/42/data", json: #"{"value":1}"#).status == 404)
            #expect(try await server.writer.post("/sensors/new_one/data", json: #"{"value":1}"#).status == 201)
            #expect(try await server.reader.get("/sensors/new_one").json["name"] == .string("New one"))
        }
    }
}
