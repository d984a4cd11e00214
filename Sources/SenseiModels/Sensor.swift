/// A sensor as the API shows it, with its newest reading and reading count.
public struct Sensor: Sendable, Hashable {
    public var id: Int64
    public var code: String
    public var name: String
    public var units: String
    public var valueType: ValueType
    public var createdAt: Timestamp
    public var updatedAt: Timestamp
    public var latest: Reading?
    public var count: Int
    /// Days the server keeps readings; nil keeps them forever (and is what a
    /// server older than retention implies, since it does not send the field).
    public var retentionDays: Int?
    /// Where the sensor is and where its readings come from (`SensorLabels`);
    /// empty for a server older than labels, which does not send the field.
    public var labels: [String: String]
    /// Gauge or counter (`SensorKind`): how its usage is counted; a gauge for a
    /// server older than energy, which does not send the field.
    public var kind: SensorKind

    /// The longest retention the server takes: a hundred years.
    public static let maximumRetentionDays = 36_500

    public init(id: Int64, code: String, name: String, units: String, valueType: ValueType,
                createdAt: Timestamp, updatedAt: Timestamp, latest: Reading?, count: Int,
                retentionDays: Int? = nil, labels: [String: String] = [:], kind: SensorKind = .gauge) {
        self.id = id
        self.code = code
        self.name = name
        self.units = units
        self.valueType = valueType
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.latest = latest
        self.count = count
        self.retentionDays = retentionDays
        self.labels = labels
        self.kind = kind
    }
}
