import SenseiModels
import Synchronization

/// Home Assistant MQTT discovery: configs published (retained) on
/// `homeassistant/<component>/[<node_id>/]<object_id>/config` by ESPHome,
/// Tasmota, Zigbee2MQTT and others, naming each entity and its unit and
/// saying which topic (and which JSON key in it) carries its state. Sensei
/// reads them for names, units and kinds only; the states come through the
/// presets.
enum HomeAssistantDiscovery {
    static let prefix = "homeassistant/"
    static let subscriptions = ["homeassistant/+/+/config", "homeassistant/+/+/+/config"]

    /// What a config says about one state: on `stateTopic`, the plain payload
    /// (`field` nil) or the JSON leaf at the key path `field`.
    struct Entry: Sendable, Equatable {
        var stateTopic: String
        var field: String?
        var name: String?
        var units: String?
        /// From `state_class`: `total_increasing` and `total` are running
        /// totals (counters), `measurement` a level (a gauge).
        var kind: SensorKind?
    }

    static func isConfigTopic(_ topic: String) -> Bool {
        topic.hasPrefix(prefix) && topic.hasSuffix("/config")
    }

    /// The entry a config payload describes; nil for an empty payload (an
    /// entity removed) or a config without a state topic.
    static func entry(from object: [String: JSONValue]) -> Entry? {
        func string(_ keys: String...) -> String? {
            for key in keys { if let text = object[key]?.stringValue, !text.isEmpty { return text } }
            return nil
        }
        guard var stateTopic = string("state_topic", "stat_t") else { return nil }
        // `~` abbreviates a base topic, at the start or the end of a topic.
        if let base = string("~") {
            if stateTopic.hasPrefix("~") { stateTopic = base + stateTopic.dropFirst() }
            else if stateTopic.hasSuffix("~") { stateTopic = stateTopic.dropLast() + base }
        }
        let template = string("value_template", "val_tpl")
        return Entry(stateTopic: stateTopic, field: template.flatMap(keyPath(ofTemplate:)),
                     name: string("name"), units: string("unit_of_measurement", "unit_of_meas"),
                     kind: string("state_class", "stat_cla").flatMap(kind(ofStateClass:)))
    }

    /// Home Assistant's sensor state classes; nil for one it may add later.
    static func kind(ofStateClass stateClass: String) -> SensorKind? {
        switch stateClass {
        case "total_increasing", "total": .counter
        case "measurement": .gauge
        default: nil
        }
    }

    /// The key path a value template reads: `{{ value_json.temperature }}` →
    /// `temperature`, `{{value_json['AM2301']['Temperature']}}` →
    /// `AM2301.Temperature`; filters after `|` are ignored. nil for templates
    /// that do not read a JSON key (`{{ value }}`) or that compute something.
    static func keyPath(ofTemplate template: String) -> String? {
        guard let open = template.range(of: "value_json") else { return nil }
        var rest = Substring(template[open.upperBound...])
        if let bar = rest.firstIndex(of: "|") { rest = rest[..<bar] }
        if let close = rest.range(of: "}}") { rest = rest[..<close.lowerBound] }
        rest = rest.trimmingWhitespace()
        var keys: [String] = []
        while !rest.isEmpty {
            if rest.hasPrefix(".") {
                rest = rest.dropFirst()
                let end = rest.firstIndex { $0 == "." || $0 == "[" } ?? rest.endIndex
                keys.append(String(rest[..<end]))
                rest = rest[end...]
            } else if rest.hasPrefix("['") || rest.hasPrefix("[\"") {
                let quote = rest[rest.index(after: rest.startIndex)]
                rest = rest.dropFirst(2)
                guard let end = rest.firstIndex(of: quote), rest[rest.index(after: end)...].hasPrefix("]") else {
                    return nil
                }
                keys.append(String(rest[..<end]))
                rest = rest[rest.index(end, offsetBy: 2)...]
            } else {
                return nil
            }
        }
        guard !keys.isEmpty, keys.allSatisfy({ !$0.isEmpty && !$0.contains(" ") }) else { return nil }
        return keys.joined(separator: ".")
    }

    /// Entries seen so far, by state topic and field. Bounded, so a broker
    /// full of configs cannot grow it without end.
    final class Table: Sendable {
        static let capacity = 20_000
        private struct Key: Hashable { var topic: String; var field: String? }
        private let entries = Mutex<[Key: Entry]>([:])

        func record(_ entry: Entry) {
            entries.withLock { entries in
                let key = Key(topic: entry.stateTopic, field: entry.field)
                guard entries.count < Self.capacity || entries[key] != nil else { return }
                entries[key] = entry
            }
        }

        /// A point's name, units and kind from its entry, which knows better than the preset's guess.
        func annotate(_ points: inout [MQTTPoint], plain: Bool) {
            entries.withLock { entries in
                guard !entries.isEmpty else { return }
                for index in points.indices {
                    let key = Key(topic: points[index].topic, field: plain ? nil : points[index].field)
                    guard let entry = entries[key] else { continue }
                    points[index].name = entry.name ?? points[index].name
                    points[index].units = entry.units ?? points[index].units
                    points[index].kind = entry.kind ?? points[index].kind
                }
            }
        }
    }
}
