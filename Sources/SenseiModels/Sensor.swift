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

    /// The longest retention the server takes: a hundred years.
    public static let maximumRetentionDays = 36_500

    public init(id: Int64, code: String, name: String, units: String, valueType: ValueType,
                createdAt: Timestamp, updatedAt: Timestamp, latest: Reading?, count: Int,
                retentionDays: Int? = nil, labels: [String: String] = [:]) {
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
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("id")
        writer.int(id)
        writer.key("code")
        writer.string(code)
        writer.key("name")
        writer.string(name)
        writer.key("units")
        writer.string(units)
        writer.key("valueType")
        writer.string(valueType.rawValue)
        writer.key("createdAt")
        writer.timestamp(createdAt)
        writer.key("updatedAt")
        writer.timestamp(updatedAt)
        writer.key("latest")
        if let latest { latest.write(to: &writer) } else { writer.null() }
        writer.key("count")
        writer.int(count)
        writer.key("retentionDays")
        if let retentionDays { writer.int(retentionDays) } else { writer.null() }
        writer.key("labels")
        SensorLabels.write(labels, to: &writer)
        writer.endObject()
    }

    public init(json: JSONValue) throws(WireFormatError) {
        guard let id = json["id"]?.intValue, let code = json["code"]?.stringValue,
              let name = json["name"]?.stringValue, let units = json["units"]?.stringValue,
              let type = json["valueType"]?.stringValue.flatMap(ValueType.init(rawValue:)),
              let created = json["createdAt"]?.stringValue.flatMap(Timestamp.init(rfc3339:)),
              let updated = json["updatedAt"]?.stringValue.flatMap(Timestamp.init(rfc3339:)),
              let count = json["count"]?.intValue else {
            throw WireFormatError("malformed sensor")
        }
        var latest: Reading?
        if let latestJSON = json["latest"], !latestJSON.isNull {
            latest = try Reading(json: latestJSON)
        }
        var retentionDays: Int?
        if let retentionJSON = json["retentionDays"], !retentionJSON.isNull {
            guard let days = retentionJSON.intValue else { throw WireFormatError("malformed sensor") }
            retentionDays = days
        }
        var labels: [String: String] = [:]
        if let labelsJSON = json["labels"], !labelsJSON.isNull {
            guard let object = labelsJSON.objectValue else { throw WireFormatError("malformed sensor") }
            for (key, value) in object {
                guard let text = value.stringValue else { throw WireFormatError("malformed sensor") }
                labels[key] = text
            }
        }
        self.init(id: Int64(id), code: code, name: name, units: units, valueType: type,
                  createdAt: created, updatedAt: updated, latest: latest, count: count,
                  retentionDays: retentionDays, labels: labels)
    }
}
