import Foundation
import Testing
import SenseiTestSupport
import SenseiModels
@testable import SenseiServer

/// `GET /metrics` against a real server: exact counts after known traffic,
/// and an exposition that parses line by line.
@Suite("Metrics")
struct MetricsTests {
    @Test func countsKnownTrafficExactly() async throws {
        try await withTestServer(configure: { $0.http.maxBodyBytes = 4096 }) { server in
            for value in 1...3 {
                #expect(try await server.writer.post("/sensors/porch/data", json: #"{"value": \#(value)}"#).status == 201)
            }
            let batch = (0..<5).map { #"{"timestamp": \#(1_736_424_000 + $0 * 30), "value": \#($0)}"# }
            #expect(try await server.writer.post("/sensors/porch/data", json: #"{"data": [\#(batch.joined(separator: ","))]}"#)
                .status == 201)
            #expect(try await server.writer.post("/sensor_data", json: #"{"sensor_code": "hall", "value": "1.5"}"#).status == 201)
            #expect(try await server.writer.post("/sensors/porch/data", json: #"{"value": "abc"}"#).status == 422)
            #expect(try await server.reader.get("/no/such/route/a1b2c3").status == 404)
            #expect(try await server.reader.request("PUT", "/sensors").status == 405)
            #expect(try await server.anonymous.get("/sensors").status == 401)
            #expect(try await server.reader.post("/sensors/porch/data", json: #"{"value": 1}"#).status == 403)
            // Refused by the HTTP layer before any routing: still by route.
            let oversize = #"{"value": 1}"# + String(repeating: " ", count: 5000)
            #expect(try await server.writer.post("/sensors/porch/data", json: oversize).status == 413)

            let scrape = try await server.reader.get("/metrics")
            #expect(scrape.status == 200)
            #expect(scrape.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
            let metrics = try Exposition(scrape.text)

            let posts = ["route": "POST /sensors/:id/data"]
            #expect(metrics.value("sensei_http_requests_total", posts + ["status": "201"]) == 4)
            #expect(metrics.value("sensei_http_requests_total", posts + ["status": "422"]) == 1)
            #expect(metrics.value("sensei_http_requests_total", posts + ["status": "403"]) == 1)
            #expect(metrics.value("sensei_http_requests_total", posts + ["status": "413"]) == 1)
            #expect(metrics.value("sensei_http_requests_total", ["route": "POST /sensor_data", "status": "201"]) == 1)
            #expect(metrics.value("sensei_http_requests_total", ["route": "unmatched", "status": "404"]) == 1)
            #expect(metrics.value("sensei_http_requests_total", ["route": "unmatched", "status": "405"]) == 1)
            #expect(metrics.value("sensei_http_requests_total", ["route": "GET /sensors", "status": "401"]) == 1)
            #expect(metrics.sum("sensei_http_requests_total") == 11)
            // Routes by pattern only: no path a client sent is a label.
            #expect(!scrape.text.contains("a1b2c3") && !scrape.text.contains("porch"))

            // Every route has its histogram from the start; counts match the requests.
            #expect(metrics.value("sensei_http_request_duration_seconds_count", posts) == 7)
            #expect(metrics.value("sensei_http_request_duration_seconds_bucket", posts + ["le": "+Inf"]) == 7)
            #expect(metrics.value("sensei_http_request_duration_seconds_count", ["route": "GET /sensors"]) == 1)
            #expect(metrics.value("sensei_http_request_duration_seconds_count", ["route": "DELETE /sensors/:id"]) == 0)
            #expect(metrics.sum("sensei_http_request_duration_seconds_count") == 11)
            let postSeconds = try #require(metrics.value("sensei_http_request_duration_seconds_sum", posts))
            #expect(postSeconds > 0 && postSeconds < 60)
            let buckets = metrics.samples.filter { $0.name == "sensei_http_request_duration_seconds_bucket" && $0.labels["route"] == posts["route"] }
            #expect(buckets.count == RouteMetrics.durationBuckets.count + 1)
            #expect(zip(buckets, buckets.dropFirst()).allSatisfy { $0.value <= $1.value })  // cumulative
            #expect(buckets.first?.labels["le"] == "0.0001" && buckets.last?.labels["le"] == "+Inf")

            // 3 + 5 readings on the v1 route, 1 on the legacy one; the refused ones not.
            #expect(metrics.value("sensei_readings_ingested_total") == 9)
            #expect(metrics.value("sensei_commit_batch_readings_sum") == 9)

            #expect(metrics.value("sensei_sensors") == 2)
            #expect(try #require(metrics.value("sensei_database_size_bytes")) > 0)
            #expect(try #require(metrics.value("sensei_connections_open")) >= 1)  // the scrape's own
            #expect(try #require(metrics.value("sensei_http_requests_in_flight")) >= 1)
            let rss = try #require(metrics.value("process_resident_memory_bytes"))
            #expect(rss > 1_000_000 && rss < 100_000_000_000)
            let started = try #require(metrics.value("process_start_time_seconds"))
            let now = Date().timeIntervalSince1970
            #expect(started <= now + 1 && started > now - 86_400 * 30)

            // The scrape itself counts once answered: the next one shows it.
            let again = try await Exposition(try server.reader.get("/metrics").text)
            #expect(again.value("sensei_http_requests_total", ["route": "GET /metrics", "status": "200"]) == 1)
            #expect(again.value("sensei_http_requests_total", posts + ["status": "201"]) == 4)

            // A token's last use is recorded by a commit of its own, which may land
            // while a scrape renders (between the counter and the histograms): the
            // commit figures are read from a scrape taken when they agree.
            let settled = try #require(try await poll(seconds: 10) { () async throws -> Exposition? in
                let rescrape = try await Exposition(server.reader.get("/metrics").text)
                return rescrape.value("sensei_commit_batch_size_count") == rescrape.value("sensei_commits_total") ? again : nil
            }, "the commit counter and its histograms never agreed")
            let commits = try #require(settled.value("sensei_commits_total"))
            #expect(commits >= 5)  // the 5 accepted POSTs, one at a time; token writes too
            #expect(settled.value("sensei_commit_batch_readings_count") == commits)
            #expect(try #require(settled.value("sensei_commit_batch_size_sum")) >= commits)
        }
    }

    @Test func needsAReadToken() async throws {
        try await withTestServer { server in
            let anonymous = try await server.anonymous.get("/metrics")
            #expect(anonymous.status == 401)
            #expect(anonymous.headers["www-authenticate"] == "Bearer")
            #expect(try await server.anonymous.get("/metrics", token: "not-a-token").status == 401)
            for client in [server.reader, server.writer, server.admin] {
                #expect(try await client.get("/metrics").status == 200)
            }
        }
    }

    @Test func expositionParsesLineByLine() async throws {
        try await withTestServer { server in
            _ = try await server.writer.post("/sensors/porch/data", json: #"{"value": 1}"#)
            _ = try await server.reader.get("/sensors")
            let text = try await server.reader.get("/metrics").text
            #expect(text.hasSuffix("\n"))
            let exposition = try Exposition(text)
            // Each family once, with HELP and TYPE before its samples.
            for (name, type) in exposition.types {
                #expect(["counter", "gauge", "histogram"].contains(type), "\(name)")
                #expect(exposition.help[name]?.isEmpty == false, "\(name)")
            }
            for name in ["sensei_http_requests_total", "sensei_readings_ingested_total", "sensei_commits_total"] {
                #expect(exposition.types[name] == "counter", "\(name)")
            }
            for name in ["sensei_http_request_duration_seconds", "sensei_commit_batch_size", "sensei_commit_batch_readings"] {
                #expect(exposition.types[name] == "histogram", "\(name)")
            }
            for name in ["sensei_database_size_bytes", "sensei_sensors", "sensei_connections_open",
                         "sensei_http_requests_in_flight", "process_resident_memory_bytes", "process_start_time_seconds"] {
                #expect(exposition.types[name] == "gauge", "\(name)")
            }
            // One histogram a route, plus unmatched.
            let routes = Set(exposition.samples.filter { $0.name == "sensei_http_request_duration_seconds_count" }
                .compactMap { $0.labels["route"] })
            let table = SenseiApplication.routes(store: server.storage, metrics: server.application.metrics,
                                                 streams: server.application.streams, alerts: server.application.alerts,
                                     link: server.application.link)
            #expect(routes.count == table.routes.count + 1)
            #expect(routes.contains("unmatched") && routes.contains("GET /metrics") && routes.contains("POST /sensor_data"))
        }
    }
}

private func + (lhs: [String: String], rhs: [String: String]) -> [String: String] {
    lhs.merging(rhs) { _, new in new }
}

/// The Prometheus text format (0.0.4) as a scraper reads it, strict: a line is
/// a `# HELP`, a `# TYPE` or a sample `name{label="value",...} value`, and
/// every sample belongs to the family whose TYPE came last.
struct Exposition {
    struct Sample {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    struct Malformed: Error, CustomStringConvertible {
        let description: String
    }

    var samples: [Sample] = []
    var types: [String: String] = [:]
    var help: [String: String] = [:]

    init(_ text: String) throws {
        var family: String?
        var seenFamilies = Set<String>()
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            if line.hasPrefix("# HELP ") || line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ", maxSplits: 3).map(String.init)
                guard parts.count == 4, Self.isName(parts[2]) else { throw Malformed(description: "bad line: \(line)") }
                if parts[1] == "HELP" {
                    guard help[parts[2]] == nil else { throw Malformed(description: "second HELP: \(line)") }
                    help[parts[2]] = parts[3]
                } else {
                    guard types[parts[2]] == nil, seenFamilies.insert(parts[2]).inserted else {
                        throw Malformed(description: "second TYPE: \(line)")
                    }
                    types[parts[2]] = parts[3]
                    family = parts[2]
                }
                continue
            }
            guard !line.hasPrefix("#"), !line.isEmpty else { throw Malformed(description: "bad line: '\(line)'") }
            let sample = try Self.sample(String(line))
            guard let family, sample.name == family || (types[family] == "histogram"
                && ["_bucket", "_sum", "_count"].contains { sample.name == family + $0 }) else {
                throw Malformed(description: "sample outside its family: \(line)")
            }
            if sample.name.hasSuffix("_bucket") && sample.labels["le"] == nil {
                throw Malformed(description: "bucket without le: \(line)")
            }
            samples.append(sample)
        }
    }

    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        let matching = samples.filter { $0.name == name && $0.labels == labels }
        return matching.count == 1 ? matching[0].value : nil
    }

    func sum(_ name: String) -> Double {
        samples.filter { $0.name == name }.reduce(0) { $0 + $1.value }
    }

    private static func isName(_ name: some StringProtocol) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: ":")
        }
    }

    private static func sample(_ line: String) throws -> Sample {
        let bad = Malformed(description: "bad sample: \(line)")
        var characters = Substring(line)
        let name = characters.prefix { $0 != "{" && $0 != " " }
        guard isName(name) else { throw bad }
        characters = characters.dropFirst(name.count)
        var labels: [String: String] = [:]
        if characters.first == "{" {
            characters = characters.dropFirst()
            while characters.first != "}" {
                let label = characters.prefix { $0 != "=" }
                guard isName(label), !label.contains(":") else { throw bad }
                characters = characters.dropFirst(label.count)
                guard characters.hasPrefix("=\"") else { throw bad }
                characters = characters.dropFirst(2)
                var value = ""
                while let next = characters.first, next != "\"" {
                    characters = characters.dropFirst()
                    if next == "\\" {
                        guard let escaped = characters.first else { throw bad }
                        characters = characters.dropFirst()
                        switch escaped {
                        case "\\": value.append("\\")
                        case "\"": value.append("\"")
                        case "n": value.append("\n")
                        default: throw bad
                        }
                    } else {
                        value.append(next)
                    }
                }
                guard characters.first == "\"", labels[String(label)] == nil else { throw bad }
                labels[String(label)] = value
                characters = characters.dropFirst()
                if characters.first == "," { characters = characters.dropFirst() }
            }
            characters = characters.dropFirst()
        }
        guard characters.first == " " else { throw bad }
        let text = characters.dropFirst()
        guard let value = Double(text) ?? ["+Inf": Double.infinity, "-Inf": -.infinity, "NaN": .nan][String(text)] else {
            throw bad
        }
        return Sample(name: String(name), labels: labels, value: value)
    }
}
