/// `serve --mqtt …`: what the server subscribes to, and where.
public struct MQTTSettings: Sendable {
    public var broker: MQTTBrokerURL
    /// `--mqtt-ca`: the CA that signed an `mqtts://` broker's certificate.
    public var caFile: String?
    /// `--mqtt-client-id`: the persistent session's name at the broker.
    public var clientID: String
    public var presets: [String]
    public var topics: [String]
    /// Reconnect backoff bounds in seconds (tests shorten them).
    public var retryDelays: (first: Double, last: Double) = (0.5, 15)

    public init(broker: MQTTBrokerURL, caFile: String? = nil, clientID: String = "sensei-server",
                presets: [String] = [], topics: [String] = []) {
        self.broker = broker
        self.caFile = caFile
        self.clientID = clientID
        self.presets = presets
        self.topics = topics
    }

    /// Checks the names and filters: the problem, or nil.
    public static func problem(presets: [String], topics: [String], clientID: String) -> String? {
        let names = MQTTPreset.allCases.map(\.rawValue)
        if let unknown = presets.first(where: { !names.contains($0) }) {
            return "--mqtt-preset \(unknown) is none of \(names.joined(separator: ", "))"
        }
        for filter in topics {
            let segments = filter.split(separator: "/", omittingEmptySubsequences: false)
            let wildcardMisused = segments.enumerated().contains { index, segment in
                (segment.contains("+") && segment != "+") || (segment.contains("#") && (segment != "#" || index != segments.count - 1))
            }
            if filter.isEmpty || filter.utf8.count > 65535 || wildcardMisused {
                return "--mqtt-topic '\(filter)' is no MQTT topic filter (`+` stands for a whole level, `#` only last)"
            }
        }
        if clientID.isEmpty || clientID.utf8.count > 256 {
            return "--mqtt-client-id must be 1 to 256 bytes"
        }
        return nil
    }

    var mapper: MQTTMessageMapper {
        MQTTMessageMapper(presets: presets.compactMap(MQTTPreset.init(rawValue:)), topicFilters: topics)
    }
}
