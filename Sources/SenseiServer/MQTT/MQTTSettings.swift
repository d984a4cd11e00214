/// `serve --mqtt …`: what the server subscribes to, and where.
public struct MQTTSettings: Sendable {
    public var broker: MQTTBrokerURL
    /// `--mqtt-ca`: the CA that signed an `mqtts://` broker's certificate.
    public var caFile: String?
    /// `--mqtt-client-id`: the persistent session's name at the broker;
    /// nil: `clientID(_:node:)` picks it.
    public var clientID: String?
    public var presets: [String]
    public var topics: [String]
    /// Reconnect backoff bounds in seconds (tests shorten them).
    public var retryDelays: (first: Double, last: Double) = (0.5, 15)

    public init(broker: MQTTBrokerURL, caFile: String? = nil, clientID: String? = nil,
                presets: [String] = [], topics: [String] = []) {
        self.broker = broker
        self.caFile = caFile
        self.clientID = clientID
        self.presets = presets
        self.topics = topics
    }

    /// The group every node of one database joins (`$share/sensei/<filter>`).
    static let shareGroup = "sensei"

    /// The client id: `given` (`--mqtt-client-id`), else `sensei-server` for
    /// the one server on SQLite (the session brokers already hold for it),
    /// else `sensei-<node>` on PostgreSQL: each node of a hub needs a session
    /// of its own, or the broker would take one node's connection for the
    /// other's and drop the first.
    public static func clientID(_ given: String?, node: String?) -> String {
        given ?? node.map { "sensei-" + $0 } ?? "sensei-server"
    }

    /// Checks the names, the filters and the client id `clientID(clientID, node:)`
    /// makes (`node`: on PostgreSQL, `--node-id` if given): the problem, or nil.
    public static func problem(presets: [String], topics: [String], clientID: String?, node: String? = nil) -> String? {
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
        let resolved = Self.clientID(clientID, node: node)
        if resolved.isEmpty || resolved.utf8.count > 256 {
            return clientID == nil
                ? "--node-id makes the MQTT client id '\(resolved.prefix(40))…', over 256 bytes: shorten it or give --mqtt-client-id"
                : "--mqtt-client-id must be 1 to 256 bytes"
        }
        return nil
    }

    var mapper: MQTTMessageMapper {
        MQTTMessageMapper(presets: presets.compactMap(MQTTPreset.init(rawValue:)), topicFilters: topics)
    }
}
