import SenseiModels

/// One sensor seen as InfluxDB sees a field of a series. The model, the
/// same both ways:
/// - a sensor with a `measurement` label is that measurement; its field is
///   its `field` label (`value` when it has none); its tags are its other
///   labels but `source` (what line protocol wrote reads back as written);
/// - any other sensor (REST, firmware, MQTT) is measurement = its code,
///   field `value`, tags = its labels but `source`.
struct InfluxSeries {
    let sensorID: Int64
    let measurement: String
    let field: String
    /// Sorted by key.
    let tags: [(key: String, value: String)]
    let valueType: ValueType

    init(sensorID: Int64, code: String, valueType: ValueType, labels: [String: String]) {
        self.sensorID = sensorID
        self.valueType = valueType
        if let measurement = labels["measurement"] {
            self.measurement = measurement
            field = labels["field"] ?? "value"
        } else {
            measurement = code
            field = "value"
        }
        tags = labels.filter { !Self.untaggedLabels.contains($0.key) }
            .map { (key: $0.key, value: $0.value) }.sorted { $0.key < $1.key }
    }

    /// The labels that are no tag: `source`, and those naming the measurement and field.
    static let untaggedLabels: Set<String> = ["source", "measurement", "field"]

    func tag(_ key: String) -> String? { tags.first { $0.key == key }?.value }

    /// InfluxDB's series key: `measurement,k=v,…` (its escaping of `,`, ` ` and `=`).
    var key: String {
        var text = Self.escape(measurement, [",", " "])
        for (key, value) in tags { text += "," + Self.escape(key, [",", " ", "="]) + "=" + Self.escape(value, [",", " ", "="]) }
        return text
    }

    private static func escape(_ text: String, _ characters: [Character]) -> String {
        var out = ""
        for character in text {
            if characters.contains(character) { out.append("\\") }
            out.append(character)
        }
        return out
    }

    /// SHOW FIELD KEYS' type names.
    var fieldType: String {
        switch valueType {
        case .float: "float"
        case .int: "integer"
        case .bool: "boolean"
        }
    }
}

/// Every sensor as a series, read once per query: a statement sees one
/// consistent list.
struct InfluxCatalog {
    let series: [InfluxSeries]

    /// Measurement names, sorted.
    var measurements: [String] { Array(Set(series.map(\.measurement))).sorted() }

    func series(of measurement: String) -> [InfluxSeries] { series.filter { $0.measurement == measurement } }

    /// The measurements named by `sources` (all when empty), sorted.
    func measurements(matching sources: [InfluxSource]) -> [String] {
        measurements.filter { name in sources.isEmpty || sources.contains { $0.matches(name) } }
    }
}
