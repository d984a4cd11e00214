import Foundation
import SenseiModels
@testable import SenseiServer

/// Sensors found again the way people and the dashboard find them: by labels.
extension TestHTTPClient {
    /// `GET /sensors?label=K:V&…`: the matching sensor objects.
    func sensors(labeled labels: [String: String]) throws -> [JSONValue] {
        let query = labels.sorted { $0.key < $1.key }.map { key, value in
            "label=" + "\(key):\(value)".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        }.joined(separator: "&")
        let response = try get("/sensors?" + query)
        guard response.status == 200 else { throw BrokerError(description: "GET /sensors?\(query): \(response.status) \(response.text)") }
        return try response.json["sensors"]?.arrayValue ?? []
    }

    /// The one MQTT sensor with this device and field, or nil.
    func mqttSensor(device: String, field: String) throws -> JSONValue? {
        try sensors(labeled: ["source": "mqtt", "device": device, "field": field]).first
    }

    /// A sensor's values, oldest first.
    func values(of sensor: JSONValue) throws -> [Double] {
        let id = sensor["id"]?.intValue ?? -1
        let response = try get("/sensors/\(id)/data?limit=10000")
        return try response.json["data"]?.arrayValue?.compactMap { $0["value"]?.doubleValue }.reversed() ?? []
    }

    /// Waits until the MQTT sensor (device, field) holds `count` readings; returns its values.
    @discardableResult
    func waitForReadings(device: String, field: String, count: Int, seconds: Double = 20) throws -> [Double] {
        var values: [Double] = []
        try waitUntil("\(count) readings of \(device) \(field)", seconds: seconds) {
            guard let sensor = try mqttSensor(device: device, field: field) else { return false }
            values = try self.values(of: sensor)
            return values.count >= count
        }
        return values
    }

    /// A counter or gauge from `/metrics` (the sample line's value), 0 when absent.
    func metric(_ sample: String) throws -> Double {
        let text = try get("/metrics").text
        for line in text.split(separator: "\n") where line.hasPrefix(sample + " ") {
            return Double(line.split(separator: " ").last!) ?? 0
        }
        return 0
    }

    var mqttHealth: String? { (try? get("/health").json)?["mqtt"]?.stringValue }
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
