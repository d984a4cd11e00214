import SenseiModels

/// One value an MQTT message carried, mapped to the sensor it belongs to:
/// what the presets produce and the subscriber hands to the store.
struct MQTTPoint: Sendable, Equatable {
    /// The topic it arrived on (label `topic`).
    var topic: String
    /// ESPHome node, Tasmota topic, Zigbee2MQTT friendly name, Shelly id, or
    /// for a generic topic the segment before the last (label `device`).
    var device: String
    /// ESPHome object id, the JSON key path, or a generic topic's last segment (label `field`).
    var field: String
    var value: Double
    var valueType: ValueType
    var name: String? = nil
    var units: String? = nil
    /// A counter when the ecosystem says the value is a running total; nil: it says nothing.
    var kind: SensorKind? = nil

    /// Every sensor MQTT makes is found again by these, whatever its code.
    var labels: [String: String] {
        ["source": "mqtt", "topic": topic, "device": device, "field": field]
    }

    /// A readable code to ask for: `device_field`, with what a code may not
    /// hold turned into `_` and cut to the longest code allowed. The series'
    /// identity is its labels, so two series wanting one code still differ.
    var preferredCode: String {
        var bytes: [UInt8] = []
        for byte in "\(device)_\(field)".utf8 {
            let allowed = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A)
                || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || byte == 0x2D
            let mapped: UInt8 = allowed ? byte : 0x5F
            // Runs of replaced characters ("Living room / sensor") collapse to one `_`.
            if mapped == 0x5F, bytes.last == 0x5F { continue }
            bytes.append(mapped)
        }
        let code = String(decoding: bytes.prefix(SensorCode.maximumLength), as: UTF8.self)
        return code.isEmpty ? "mqtt" : code
    }
}

/// Why a message stored nothing. Each is a label value of
/// `sensei_mqtt_dropped_total{reason=…}`.
enum MQTTDropReason: String, Sendable, CaseIterable, Error {
    /// A retained message: its time is unknown, so it is no new reading.
    case retained
    /// Over `MQTTPayload.maximumBytes`.
    case tooLarge = "too_large"
    case invalidUTF8 = "invalid_utf8"
    case invalidJSON = "invalid_json"
    /// Neither a number, a boolean word, nor JSON holding one.
    case notANumber = "not_a_number"
    /// NaN or ±infinity (ESPHome publishes `nan` for a sensor with no value).
    case notFinite = "not_finite"
    /// A topic, device or field too long to be a label value.
    case invalidLabels = "invalid_labels"
    /// The store refused a new sensor past `--max-sensors`.
    case sensorLimit = "sensor_limit"
    /// The value does not fit the sensor's type (a boolean sensor given 21.5).
    case valueType = "value_type"
    /// The store failed to commit it (the disk, the database).
    case storeFailed = "store_failed"
}

/// What one message means.
enum MQTTOutcome: Sendable, Equatable {
    /// Readings to store.
    case points([MQTTPoint])
    /// A Home Assistant discovery config: names and units for later points.
    case discovery(HomeAssistantDiscovery.Entry)
    /// Not a topic anything here maps (a bridge topic, availability, a command).
    case ignored
    case dropped(MQTTDropReason)
}
