import SenseiLineProtocol
import SenseiModels

/// Line-protocol points as the store's series points: each (measurement, tag
/// set, field) is one series, so one sensor.
///
/// - Identity: `influx`, the measurement, each tag key and value in key order,
///   the field. Code: `measurement_tagvalue…_field` (the store makes it valid
///   and unique). Name: `measurement field (tag=value, …)`. Labels: `source`
///   (`influx`), `measurement`, `field` and one per tag (a tag named like one of
///   those three yields to them). Floats are `float` sensors, `i`/`u` integers
///   `int`, booleans `bool`; string fields are not stored.
/// - Home Assistant (a line with `domain` and `entity_id` tags, as its InfluxDB
///   integration writes `°C,domain=sensor,entity_id=living_room value=21.3,
///   friendly_name_str="Living room"`): one sensor per entity, from the `value`
///   field only (the other fields are its attributes). Identity: `influx`,
///   `homeassistant`, domain, entity id, so a changed unit keeps the sensor.
///   Code: the entity id; name: `friendly_name_str` (or `friendly_name`); units:
///   the measurement, which HA sets to the unit, unless it is the entity id
///   itself (HA's choice when there is no unit).
///
/// A request's lines mostly repeat a few series: each series is built once
/// per request and its points gathered into one `SeriesBatch`, found by the
/// bytes of its key and field; a line with the same key as the line before
/// (a batch of one series, as devices send) finds its batches without a hash.
struct LineSeries {
    let body: UnsafeBufferPointer<UInt8>
    /// A timestamp for lines without one; nil: the store's receive time.
    let defaultTimestamp: Timestamp?
    private var batchOf: [SeriesKey: Int] = [:]
    private var homeAssistantBatchOf: [SeriesIdentity: Int] = [:]
    /// The previous line's key, and the batch of each of its fields.
    private var previousKey: UnsafeBufferPointer<UInt8>?
    private var previousFields: [(key: UnsafeBufferPointer<UInt8>, batch: Int)] = []
    private(set) var batches: [SeriesBatch] = []
    /// Points gathered so far: the next point's position.
    private(set) var count = 0

    init(body: UnsafeBufferPointer<UInt8>, defaultTimestamp: Timestamp?) {
        self.body = body
        self.defaultTimestamp = defaultTimestamp
    }

    mutating func add(_ line: LineProtocolLine) {
        let timestamp = line.timestamp.map(Timestamp.init(milliseconds:)) ?? defaultTimestamp
        if let entity = homeAssistantEntity(line) {
            addHomeAssistant(line, entity, timestamp)
            return
        }
        let key = line.key.raw(in: body)
        let sameKey = previousKey.map { sameBytes($0, key) } ?? false
        if !sameKey {
            previousKey = key
            previousFields.removeAll(keepingCapacity: true)
        }
        for (position, field) in line.fields.enumerated() {
            guard let (value, type) = Self.number(field.value) else { continue }
            let fieldKey = field.key.raw(in: body)
            let batch: Int
            if sameKey, position < previousFields.count, sameBytes(previousFields[position].key, fieldKey) {
                batch = previousFields[position].batch
            } else {
                let seriesKey = SeriesKey(key: key, field: fieldKey)
                if let found = batchOf[seriesKey] {
                    batch = found
                } else {
                    batch = batches.count
                    batchOf[seriesKey] = batch
                    batches.append(SeriesBatch(series: makeSeries(line, field: field, type: type)))
                }
                remember(fieldKey, batch, at: position)
            }
            append(ReadingInput(timestamp: timestamp, value: value), to: batch)
        }
    }

    /// Notes the batch of the previous line's field at `position` (fields
    /// skipped as strings leave their slot unused).
    private mutating func remember(_ fieldKey: UnsafeBufferPointer<UInt8>, _ batch: Int, at position: Int) {
        while previousFields.count <= position { previousFields.append((UnsafeBufferPointer(start: nil, count: 0), -1)) }
        previousFields[position] = (fieldKey, batch)
    }

    private mutating func append(_ reading: ReadingInput, to batch: Int) {
        batches[batch].readings.append(reading)
        batches[batch].positions.append(count)
        count += 1
    }

    static func number(_ value: LineFieldValue) -> (Double, ValueType)? {
        switch value {
        case .float(let value): (value, .float)
        case .integer(let value): (Double(value), .int)
        case .unsigned(let value): (Double(value), .int)
        case .boolean(let value): (value ? 1 : 0, .bool)
        case .string: nil
        }
    }

    private func makeSeries(_ line: LineProtocolLine, field: LineProtocolLine.Field, type: ValueType) -> Series {
        let measurement = line.measurement.text(in: body, .measurement)
        let fieldName = field.key.text(in: body, .tag)
        var parts = [measurement]
        var labels: [String: String] = [:]
        var code = measurement
        var described: [String] = []
        for tag in line.tags {
            let (name, value) = (tag.key.text(in: body, .tag), tag.value.text(in: body, .tag))
            parts.append(name)
            parts.append(value)
            labels[name] = value
            code += "_" + value
            described.append("\(name)=\(value)")
        }
        parts.append(fieldName)
        labels["source"] = "influx"
        labels["measurement"] = measurement
        labels["field"] = fieldName
        let name = "\(measurement) \(fieldName)" + (described.isEmpty ? "" : " (\(described.joined(separator: ", ")))")
        return Series(identity: SeriesIdentity(source: "influx", parts: parts), preferredCode: code + "_" + fieldName,
                      labels: labels, name: name, units: nil, valueType: type)
    }

    // MARK: Home Assistant

    private struct Entity {
        var domain: String
        var id: String
    }

    private func homeAssistantEntity(_ line: LineProtocolLine) -> Entity? {
        var domain: String?, id: String?
        for tag in line.tags {
            if Self.equals(tag.key.raw(in: body), "domain") { domain = tag.value.text(in: body, .tag) }
            if Self.equals(tag.key.raw(in: body), "entity_id") { id = tag.value.text(in: body, .tag) }
        }
        guard let domain, let id else { return nil }
        return Entity(domain: domain, id: id)
    }

    private mutating func addHomeAssistant(_ line: LineProtocolLine, _ entity: Entity, _ timestamp: Timestamp?) {
        guard let field = line.fields.first(where: { Self.equals($0.key.raw(in: body), "value") }),
              let (value, type) = Self.number(field.value) else { return }
        var friendlyName: String?
        for candidate in line.fields where candidate.value == .string {
            let key = candidate.key.raw(in: body)
            if Self.equals(key, "friendly_name_str") || (friendlyName == nil && Self.equals(key, "friendly_name")) {
                friendlyName = candidate.text.text(in: body, .string)
            }
        }
        let measurement = line.measurement.text(in: body, .measurement)
        let unitless = measurement == entity.id || measurement == "\(entity.domain).\(entity.id)"
        var labels: [String: String] = [:]
        for tag in line.tags { labels[tag.key.text(in: body, .tag)] = tag.value.text(in: body, .tag) }
        labels["source"] = "influx"
        labels["measurement"] = measurement
        labels["field"] = "value"
        let series = Series(identity: SeriesIdentity(source: "influx", parts: ["homeassistant", entity.domain, entity.id]),
                            preferredCode: entity.id, labels: labels, name: friendlyName,
                            units: unitless ? nil : measurement, valueType: type)
        // The first line of an entity names its sensor, as the store keeps a
        // series' first description.
        let batch = homeAssistantBatchOf[series.identity] ?? {
            batches.append(SeriesBatch(series: series))
            return batches.count - 1
        }()
        homeAssistantBatchOf[series.identity] = batch
        append(ReadingInput(timestamp: timestamp, value: value), to: batch)
    }

    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
        text.withUTF8Buffer { sameBytes($0, bytes) }
    }
}

/// A series' key and field as bytes of the request body: hashed and compared
/// in place, so a cache hit allocates nothing. Valid while the body lives.
private struct SeriesKey: Hashable {
    let key: UnsafeBufferPointer<UInt8>
    let field: UnsafeBufferPointer<UInt8>

    init(key: UnsafeBufferPointer<UInt8>, field: UnsafeBufferPointer<UInt8>) {
        self.key = key
        self.field = field
    }

    static func == (lhs: SeriesKey, rhs: SeriesKey) -> Bool {
        sameBytes(lhs.key, rhs.key) && sameBytes(lhs.field, rhs.field)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(bytes: UnsafeRawBufferPointer(key))
        hasher.combine(key.count)
        hasher.combine(bytes: UnsafeRawBufferPointer(field))
    }
}
