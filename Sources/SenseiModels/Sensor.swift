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

    public init(id: Int64, code: String, name: String, units: String, valueType: ValueType,
                createdAt: Timestamp, updatedAt: Timestamp, latest: Reading?, count: Int) {
        self.id = id
        self.code = code
        self.name = name
        self.units = units
        self.valueType = valueType
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.latest = latest
        self.count = count
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
        self.init(id: Int64(id), code: code, name: name, units: units, valueType: type,
                  createdAt: created, updatedAt: updated, latest: latest, count: count)
    }
}
