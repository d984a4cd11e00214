import Foundation
import SenseiModels
@testable import SenseiServer

/// Sensors found again the way people and the dashboard find them: by labels.
extension TestHTTPClient {
    /// `GET /sensors?label=K:V&…`: the matching sensor objects.
    func sensors(labeled labels: [String: String]) async throws -> [JSONValue] {
        let query = labels.sorted { $0.key < $1.key }.map { key, value in
            "label=" + "\(key):\(value)".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        }.joined(separator: "&")
        let response = try await get("/sensors?" + query)
        guard response.status == 200 else { throw BrokerError(description: "GET /sensors?\(query): \(response.status) \(response.text)") }
        return try response.json["sensors"]?.arrayValue ?? []
    }

    /// The one MQTT sensor with this device and field, or nil.
    func mqttSensor(device: String, field: String) async throws -> JSONValue? {
        try await sensors(labeled: ["source": "mqtt", "device": device, "field": field]).first
    }

    /// A sensor's values, oldest first.
    func values(of sensor: JSONValue) async throws -> [Double] {
        let id = sensor["id"]?.intValue ?? -1
        let response = try await get("/sensors/\(id)/data?limit=10000")
        return try response.json["data"]?.arrayValue?.compactMap { $0["value"]?.doubleValue }.reversed() ?? []
    }

    /// Waits until the MQTT sensor (device, field) holds `count` readings; returns its values.
    @discardableResult
    func waitForReadings(device: String, field: String, count: Int, seconds: Double = 20) async throws -> [Double] {
        var values: [Double] = []
        try await waitUntil("\(count) readings of \(device) \(field)", seconds: seconds) {
            guard let sensor = try await mqttSensor(device: device, field: field) else { return false }
            values = try await self.values(of: sensor)
            return values.count >= count
        }
        return values
    }

    /// A counter or gauge from `/metrics` (the sample line's value), 0 when absent.
    func metric(_ sample: String) async throws -> Double {
        let text = try await get("/metrics").text
        for line in text.split(separator: "\n") where line.hasPrefix(sample + " ") {
            return Double(line.split(separator: " ").last!) ?? 0
        }
        return 0
    }

    var mqttHealth: String? {
        get async { (try? await get("/health").json)?["mqtt"]?.stringValue }
    }
}

extension SenseiApplication.Configuration {
    /// Subscribes to `broker` with quick reconnects, so tests wait little.
    mutating func subscribe(to broker: MQTTBroker, presets: [String] = MQTTPreset.allCases.map(\.rawValue),
                            topics: [String] = ["home/#"], clientID: String = "sensei-test") {
        var settings = MQTTSettings(broker: try! MQTTBrokerURL(parsing: broker.url), clientID: clientID,
                                    presets: presets, topics: topics)
        settings.retryDelays = (0.05, 0.3)
        mqtt = settings
    }
}

typealias MQTTBroker = MosquittoBroker
