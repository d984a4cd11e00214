import SenseiModels

/// An ecosystem whose topics and payloads Sensei knows (`--mqtt-preset`).
/// Each preset subscribes to its topics and maps a message on them to points;
/// a topic it subscribes to but does not map (a bridge's own state, a
/// command) is ignored.
enum MQTTPreset: String, CaseIterable, Sendable {
    case esphome, tasmota, zigbee2mqtt, shelly, homeassistant

    var subscriptions: [String] {
        switch self {
        // `<node>/sensor/<object_id>/state`, ESPHome's default topic prefix being the node name.
        case .esphome: ["+/sensor/+/state", "+/binary_sensor/+/state"]
        // `tele/<topic>/SENSOR`, Tasmota's default FullTopic `%prefix%/%topic%/`.
        case .tasmota: ["tele/+/SENSOR"]
        // `zigbee2mqtt/<friendly name>`, and friendly names may hold `/`.
        case .zigbee2mqtt: ["zigbee2mqtt/#"]
        // Gen2 "generic status update over MQTT": `<id>/status/<component>:<n>`.
        case .shelly: ["+/status/+"]
        case .homeassistant: HomeAssistantDiscovery.subscriptions
        }
    }

    /// What this preset makes of a message on `topic`: nil when the topic is
    /// not one of its own, `.ignored` for its topics that carry no reading.
    /// `payload` is read only for topics the preset maps.
    func map(topic: String, payload: () -> Result<MQTTPayload, MQTTDropReason>) -> MQTTOutcome? {
        let segments = topic.split(separator: "/", omittingEmptySubsequences: false)
        switch self {
        case .esphome:
            guard segments.count == 4, segments[1] == "sensor" || segments[1] == "binary_sensor",
                  segments[3] == "state" else { return nil }
            return Self.scalar(payload(), topic: topic, device: String(segments[0]), field: String(segments[2]))
        case .tasmota:
            guard segments.count == 3, segments[0] == "tele", segments[2] == "SENSOR" else { return nil }
            return Self.object(payload()) { Self.tasmotaPoints($0, topic: topic, device: String(segments[1])) }
        case .zigbee2mqtt:
            guard segments.count >= 2, segments[0] == "zigbee2mqtt" else { return nil }
            let name = segments.dropFirst()
            let commands: Set<Substring> = ["set", "get"]
            if name.first == "bridge" || name.last == "availability" || commands.contains(name.last!)
                || (name.count >= 2 && commands.contains(name[name.endIndex - 2])) {
                return .ignored
            }
            let device = name.joined(separator: "/")
            return Self.object(payload()) { object in
                // `update` describes firmware (versions as numbers), `last_seen` is a time.
                let readings = object.filter { $0.key != "update" && $0.key != "last_seen" }
                return MQTTPayload.leaves(of: readings).map { leaf in
                    MQTTPoint(topic: topic, device: device, field: leaf.path, value: leaf.value,
                              valueType: leaf.type, units: Self.zigbeeUnits[leaf.path])
                }
            }
        case .shelly:
            guard segments.count == 3, segments[1] == "status", !segments[0].isEmpty, !segments[2].isEmpty else {
                return nil
            }
            let component = String(segments[2])
            return Self.object(payload()) { object in
                // `id` repeats the component's number; `minute_ts` is a time.
                let readings = object.filter { $0.key != "id" }
                return MQTTPayload.leaves(of: readings, prefix: component).compactMap { leaf in
                    let key = leaf.path.split(separator: ".").last.map(String.init) ?? leaf.path
                    guard key != "minute_ts" else { return nil }
                    return MQTTPoint(topic: topic, device: String(segments[0]), field: leaf.path, value: leaf.value,
                                     valueType: leaf.type, units: Self.shellyUnits[key])
                }
            }
        case .homeassistant:
            guard HomeAssistantDiscovery.isConfigTopic(topic) else { return nil }
            switch payload() {
            case .success(.object(let object)):
                return HomeAssistantDiscovery.entry(from: object).map(MQTTOutcome.discovery) ?? .ignored
            case .success(.scalar): return .dropped(.notANumber)
            case .failure(let reason): return .dropped(reason)
            }
        }
    }

    /// A payload that must be a plain value (ESPHome's states, generic topics).
    static func scalar(_ payload: Result<MQTTPayload, MQTTDropReason>, topic: String, device: String,
                       field: String) -> MQTTOutcome {
        switch payload {
        case .success(.scalar(let value, let type)):
            return .points([MQTTPoint(topic: topic, device: device, field: field, value: value, valueType: type)])
        case .success(.object): return .dropped(.notANumber)
        case .failure(let reason): return .dropped(reason)
        }
    }

    /// A payload that must be a JSON object with at least one value in it.
    static func object(_ payload: Result<MQTTPayload, MQTTDropReason>,
                       _ points: ([String: JSONValue]) -> [MQTTPoint]) -> MQTTOutcome {
        switch payload {
        case .success(.object(let object)):
            let found = points(object)
            if found.isEmpty { return .dropped(.notANumber) }
            if found.count > MQTTPayload.maximumLeaves { return .dropped(.tooLarge) }
            return .points(found)
        case .success(.scalar): return .dropped(.notANumber)
        case .failure(let reason): return .dropped(reason)
        }
    }
}
