import CMosquitto
import SenseiModels

/// From (topic, payload, retained) to what a message means: the enabled
/// presets first, then the generic `--mqtt-topic` filters. Pure but for the
/// discovery table it reads and the one it fills.
struct MQTTMessageMapper: Sendable {
    let presets: [MQTTPreset]
    let topicFilters: [String]
    let discovery: HomeAssistantDiscovery.Table

    init(presets: [MQTTPreset], topicFilters: [String], discovery: HomeAssistantDiscovery.Table = .init()) {
        self.presets = presets
        self.topicFilters = topicFilters
        self.discovery = discovery
    }

    /// Every filter to subscribe to, each once.
    var subscriptions: [String] {
        var seen: Set<String> = []
        return (presets.flatMap(\.subscriptions) + topicFilters).filter { seen.insert($0).inserted }
    }

    static let maximumLabelBytes = 256

    func map(topic: String, payload: [UInt8], retained: Bool) -> MQTTOutcome {
        var decoded: Result<MQTTPayload, MQTTDropReason>?
        let read = { () -> Result<MQTTPayload, MQTTDropReason> in
            if let decoded { return decoded }
            let result = MQTTPayload.decode(payload)
            decoded = result
            return result
        }
        // A discovery config is retained by design, and still tells names and units.
        if presets.contains(.homeassistant), HomeAssistantDiscovery.isConfigTopic(topic) {
            if payload.isEmpty { return .ignored }
            let outcome = MQTTPreset.homeassistant.map(topic: topic, payload: read) ?? .ignored
            if case .discovery(let entry) = outcome { discovery.record(entry) }
            return outcome
        }
        var outcome: MQTTOutcome?
        var plain = false
        var claimed: MQTTPreset?
        for preset in presets where preset != .homeassistant {
            // Decide whether the topic is the preset's before reading the payload,
            // so a retained message is refused without parsing it.
            let claims = preset.map(topic: topic) { .failure(.retained) }
            guard let claims else { continue }
            if claims == .ignored { return .ignored }
            if retained { return .dropped(.retained) }
            outcome = preset.map(topic: topic, payload: read)
            plain = preset == .esphome
            claimed = preset
            break
        }
        if outcome == nil, topicFilters.contains(where: { Self.topic(topic, matches: $0) }) {
            if retained { return .dropped(.retained) }
            outcome = Self.generic(topic: topic, payload: read())
            if case .success(.scalar) = read() { plain = true }
        }
        guard case .points(var points)? = outcome else { return outcome ?? .ignored }
        for point in points where ![point.topic, point.device, point.field].allSatisfy(Self.isLabelValue) {
            return .dropped(.invalidLabels)
        }
        if let claimed {
            for index in points.indices { points[index].kind = claimed.kind(ofField: points[index].field) }
        }
        discovery.annotate(&points, plain: plain)
        return .points(points)
    }

    /// A generic topic: a plain value is the sensor `field` = the last
    /// segment; a JSON object gives one sensor a numeric or boolean leaf.
    /// `device` is the segment before the last (the whole topic when it has one segment).
    static func generic(topic: String, payload: Result<MQTTPayload, MQTTDropReason>) -> MQTTOutcome {
        let segments = topic.split(separator: "/", omittingEmptySubsequences: false)
        let device = segments.count >= 2 ? String(segments[segments.count - 2]) : topic
        let last = String(segments.last ?? Substring(topic))
        if case .success(.scalar) = payload {
            return MQTTPreset.scalar(payload, topic: topic, device: device, field: last)
        }
        return MQTTPreset.object(payload) { object in
            MQTTPayload.leaves(of: object).map {
                MQTTPoint(topic: topic, device: device, field: $0.path, value: $0.value, valueType: $0.type)
            }
        }
    }

    /// MQTT's wildcard matching (`+` one level, `#` the rest), by the library that speaks MQTT.
    static func topic(_ topic: String, matches filter: String) -> Bool {
        var result = false
        return mosquitto_topic_matches_sub(filter, topic, &result) == MOSQ_ERR_SUCCESS.rawValue && result
    }

    /// Label values are 1 to 256 UTF-8 bytes.
    private static func isLabelValue(_ text: String) -> Bool {
        (1...maximumLabelBytes).contains(text.utf8.count)
    }
}
