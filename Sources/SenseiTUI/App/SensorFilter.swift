import SenseiModels

/// Which sensors to show: the one rule the dashboard's `/` prompt and
/// `sensei list --filter/--label` share.
///
/// `text` matches a sensor whose name, code or any label value contains it,
/// ignoring case (so `kitchen` finds `Kitchen temperature` and a sensor
/// labelled `room=kitchen`). Each label selector must match exactly, as the
/// server's `GET /sensors?label=KEY:VALUE` does. Empty: every sensor.
public struct SensorFilter: Sendable, Hashable {
    public struct LabelSelector: Sendable, Hashable {
        public var key: String
        public var value: String

        public init(key: String, value: String) {
            self.key = key
            self.value = value
        }

        /// `KEY:VALUE`, split at the first colon (a value may hold colons); nil
        /// without a colon or with an empty key.
        public init?(_ text: String) {
            guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else { return nil }
            self.init(key: String(text[..<colon]), value: String(text[text.index(after: colon)...]))
        }
    }

    public var text: String
    public var labels: [LabelSelector]

    public init(text: String = "", labels: [LabelSelector] = []) {
        self.text = text
        self.labels = labels
    }

    public var isEmpty: Bool { text.isEmpty && labels.isEmpty }

    public func matches(_ sensor: Sensor) -> Bool {
        guard labels.allSatisfy({ sensor.labels[$0.key] == $0.value }) else { return false }
        guard !text.isEmpty else { return true }
        let needle = text.lowercased()
        return sensor.name.lowercased().contains(needle) || sensor.code.lowercased().contains(needle)
            || sensor.labels.values.contains { $0.lowercased().contains(needle) }
    }
}
