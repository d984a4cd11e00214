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

    public var text: String {
        didSet { needle = Array(text.lowercased().utf8) }
    }
    public var labels: [LabelSelector]
    /// `text` lowercased, as bytes: what a `SearchKey` is searched for.
    private var needle: [UInt8]

    public init(text: String = "", labels: [LabelSelector] = []) {
        self.text = text
        self.labels = labels
        needle = Array(text.lowercased().utf8)
    }

    public var isEmpty: Bool { text.isEmpty && labels.isEmpty }

    public func matches(_ sensor: Sensor) -> Bool {
        matches(sensor, key: SearchKey(sensor))
    }

    /// `matches(_:)` with the sensor's key made beforehand: typing in the `/`
    /// prompt filters 10,000 sensors a keystroke without lowercasing any.
    public func matches(_ sensor: Sensor, key: SearchKey) -> Bool {
        guard labels.allSatisfy({ sensor.labels[$0.key] == $0.value }) else { return false }
        return needle.isEmpty || key.contains(needle)
    }
}

/// What the filter's text is looked for in: a sensor's name, code and label
/// values, lowercased, as UTF-8 with a NUL between them (no needle typed at
/// a keyboard holds one, so no match spans two of them).
public struct SearchKey: Sendable, Hashable {
    private let bytes: [UInt8]

    public init(_ sensor: Sensor) {
        var bytes = Array(sensor.name.lowercased().utf8)
        for part in [sensor.code] + sensor.labels.values.sorted() {
            bytes.append(0)
            bytes += part.lowercased().utf8
        }
        self.bytes = bytes
    }

    /// A plain byte search: keys are tens of bytes, so nothing cleverer pays
    /// (Glibc's `memmem` is not visible to Swift without `_GNU_SOURCE`).
    func contains(_ needle: [UInt8]) -> Bool {
        guard let first = needle.first else { return true }
        guard needle.count <= bytes.count else { return false }
        var start = 0
        let last = bytes.count - needle.count
        while start <= last {
            if bytes[start] == first, bytes[start..<(start + needle.count)].elementsEqual(needle) { return true }
            start += 1
        }
        return false
    }
}
