/// The sensor's wire form, written and read here only: `GET /sensors`, the
/// dashboard's reports (`sensei list --json`) and alert notifications all
/// write a selection of these keys, always in this order.
extension Sensor {
    /// The keys an encoding carries beyond `id`, `code`, `name` and `units`,
    /// which every one starts with.
    public struct JSONFields: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        public static let valueType = JSONFields(rawValue: 1 << 0)
        /// `createdAt` and `updatedAt`.
        public static let times = JSONFields(rawValue: 1 << 1)
        public static let latest = JSONFields(rawValue: 1 << 2)
        public static let count = JSONFields(rawValue: 1 << 3)
        public static let retentionDays = JSONFields(rawValue: 1 << 4)
        public static let labels = JSONFields(rawValue: 1 << 5)
        public static let kind = JSONFields(rawValue: 1 << 6)

        /// The API's sensor object.
        public static let all: JSONFields = [.valueType, .times, .latest, .count, .retentionDays, .labels, .kind]
        /// `sensei list --json` and `sensei show --json`: what a script reads of a cached sensor.
        public static let report: JSONFields = [.valueType, .latest, .count, .labels, .kind]
    }

    /// The API's sensor object.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writeFields(.all, to: &writer)
        writer.endObject()
    }

    /// The keys of `fields` (and the four every encoding has), without the
    /// braces, so an encoding may add keys of its own after them.
    public func writeFields(_ fields: JSONFields, to writer: inout JSONWriter) {
        Self.writeIdentity(id: id, code: code, name: name, units: units, to: &writer)
        if fields.contains(.valueType) {
            writer.key("valueType")
            writer.string(valueType.rawValue)
        }
        if fields.contains(.times) {
            writer.key("createdAt")
            writer.timestamp(createdAt)
            writer.key("updatedAt")
            writer.timestamp(updatedAt)
        }
        if fields.contains(.latest) {
            writer.key("latest")
            if let latest { latest.write(to: &writer) } else { writer.null() }
        }
        if fields.contains(.count) {
            writer.key("count")
            writer.int(count)
        }
        if fields.contains(.retentionDays) {
            writer.key("retentionDays")
            if let retentionDays { writer.int(retentionDays) } else { writer.null() }
        }
        if fields.contains(.labels) {
            writer.key("labels")
            SensorLabels.write(labels, to: &writer)
        }
        if fields.contains(.kind) {
            writer.key("kind")
            writer.string(kind.rawValue)
        }
    }

    /// `"id","code","name","units"`: how every encoding of a sensor begins,
    /// for writers that hold only these (an alert notification).
    public static func writeIdentity(id: Int64, code: String, name: String, units: String,
                                     to writer: inout JSONWriter) {
        writer.key("id")
        writer.int(id)
        writer.key("code")
        writer.string(code)
        writer.key("name")
        writer.string(name)
        writer.key("units")
        writer.string(units)
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
        var kind = SensorKind.gauge
        if let kindJSON = json["kind"], !kindJSON.isNull {
            guard let named = kindJSON.stringValue.flatMap(SensorKind.init(rawValue:)) else {
                throw WireFormatError("malformed sensor")
            }
            kind = named
        }
        self.init(id: Int64(id), code: code, name: name, units: units, valueType: type,
                  createdAt: created, updatedAt: updated, latest: latest, count: count,
                  retentionDays: retentionDays, labels: labels, kind: kind)
    }
}
