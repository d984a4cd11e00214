import SenseiModels

/// What tells one series of an ingest path from every other, for good: the
/// source (`influx`, `mqtt`) and the parts that identify a series there. The
/// store maps it to a sensor (table `series`), so a sensor renamed or re-coded
/// keeps its series. The parts must tell series apart without ambiguity, e.g.
/// line protocol: measurement, then each tag key and value in key order, then
/// the field; MQTT: the topic, then the JSON key path (empty for a plain value).
public struct SeriesIdentity: Sendable, Hashable, CustomStringConvertible {
    public let source: String
    public let parts: [String]
    /// `["source","part",…]` as JSON: the key the store keeps (`series.identity`).
    public let key: String

    public init(source: String, parts: [String]) {
        self.source = source
        self.parts = parts
        var writer = JSONWriter(capacity: 16 + parts.reduce(source.utf8.count) { $0 + $1.utf8.count + 3 })
        writer.beginArray()
        writer.string(source)
        for part in parts { writer.string(part) }
        writer.endArray()
        key = writer.string
    }

    public static func == (lhs: SeriesIdentity, rhs: SeriesIdentity) -> Bool { lhs.key == rhs.key }
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }
    public var description: String { key }
}

/// A series as an ingest path describes it. Only `identity` finds its sensor;
/// the rest is used when the sensor is created (and `name`, `units`, `kind`
/// later too, while no person has set them: see `SenseiStore.ingest`).
public struct Series: Sendable {
    public var identity: SeriesIdentity
    /// What the new sensor's code should look like (`living_room`,
    /// `cpu_host1_usage_idle`); the store makes a valid, free code of it
    /// (`SeriesCode`).
    public var preferredCode: String
    /// The new sensor's labels; the store adds `source` (the identity's) when
    /// missing, and fits them to `SensorLabels`' rules (`SensorLabels.fitted`).
    public var labels: [String: String]
    /// nil: named after its code. Cut to 200 characters.
    public var name: String?
    /// nil: none (""). Cut to 50 characters.
    public var units: String?
    /// The new sensor's value type; later points must fit the sensor's type.
    public var valueType: ValueType
    /// What the ecosystem says the series is (an energy total is a counter);
    /// nil: it says nothing, and a new sensor is a gauge.
    public var kind: SensorKind?

    public init(identity: SeriesIdentity, preferredCode: String, labels: [String: String] = [:],
                name: String? = nil, units: String? = nil, valueType: ValueType = .float, kind: SensorKind? = nil) {
        self.identity = identity
        self.preferredCode = preferredCode
        self.labels = labels
        self.name = name
        self.units = units
        self.valueType = valueType
        self.kind = kind
    }
}

/// One value of a series.
public struct SeriesPoint: Sendable {
    public var series: Series
    /// Booleans as 1/0; must be finite.
    public var value: Double
    /// nil: the receive time (moved on by 1 ms while that millisecond is taken).
    public var timestamp: Timestamp?

    public init(series: Series, value: Double, timestamp: Timestamp? = nil) {
        self.series = series
        self.value = value
        self.timestamp = timestamp
    }
}

/// The points of one series, handed over together by an ingest path that
/// reads many at once (a line-protocol body): the series once, not once a
/// point, so a batch of 1,000 points costs the store one lookup, not 1,000
/// copies and hashes of the series.
public struct SeriesBatch: Sendable {
    public var series: Series
    public var readings: [ReadingInput]
    /// Each reading's position among the call's points: the outcome's
    /// refusals name points by it, in the order they were given.
    public var positions: [Int]

    public init(series: Series, readings: [ReadingInput] = [], positions: [Int] = []) {
        self.series = series
        self.readings = readings
        self.positions = positions
    }

    /// Points grouped by series, in the order each series first appears.
    public static func grouping(_ points: [SeriesPoint]) -> [SeriesBatch] {
        var gathering = Gathering()
        for (position, point) in points.enumerated() {
            gathering.add(ReadingInput(timestamp: point.timestamp, value: point.value), at: position, of: point.series)
        }
        return gathering.batches
    }

    /// Batches gathered by series identity, in the order each series first
    /// comes; a series keeps its first description.
    struct Gathering {
        private(set) var batches: [SeriesBatch] = []
        private var indexOf: [SeriesIdentity: Int] = [:]

        mutating func add(_ reading: ReadingInput, at position: Int, of series: Series) {
            let index = self.index(of: series)
            batches[index].readings.append(reading)
            batches[index].positions.append(position)
        }

        /// A batch of a series not seen yet is kept as it is, not copied.
        mutating func add(_ batch: SeriesBatch) {
            guard let index = indexOf[batch.series.identity] else {
                indexOf[batch.series.identity] = batches.count
                batches.append(batch)
                return
            }
            batches[index].readings += batch.readings
            batches[index].positions += batch.positions
        }

        private mutating func index(of series: Series) -> Int {
            if let index = indexOf[series.identity] { return index }
            add(SeriesBatch(series: series))
            return batches.count - 1
        }
    }
}

/// What `SenseiStore.ingest` did, once it is durably committed.
public struct SeriesIngestOutcome: Sendable, Equatable {
    /// Points stored (a point on an existing sensor and timestamp replaces its value).
    public var accepted: Int
    /// Sensors this call created.
    public var createdSensors: Int
    /// The points not stored, in the order given, with why.
    public var refused: [SeriesRefusal]

    public init(accepted: Int = 0, createdSensors: Int = 0, refused: [SeriesRefusal] = []) {
        self.accepted = accepted
        self.createdSensors = createdSensors
        self.refused = refused
    }
}

public struct SeriesRefusal: Sendable, Equatable {
    /// The point's index in the call's array.
    public var index: Int
    public var error: SeriesIngestError
}

/// Why the store refused a point of a series.
public enum SeriesIngestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Its series has no sensor yet, and the call's new sensors would pass
    /// `--max-sensors` (`limit`): none of the call's new sensors was created.
    case sensorLimit(limit: Int)
    /// The value does not fit the sensor's value type (an `int` sensor given 2.5).
    case valueType(code: String, valueType: ValueType, problem: String)
    /// NaN or an infinity.
    case notFinite

    public var description: String {
        switch self {
        case .sensorLimit(let limit):
            "sensor limit reached: creating this series' sensor would pass the server's limit of \(limit) sensors "
                + "(--max-sensors); no new sensor was created"
        case .valueType(let code, let valueType, let problem):
            "sensor '\(code)' holds \(valueType.rawValue) values: \(problem)"
        case .notFinite:
            "value is not a finite number"
        }
    }
}
