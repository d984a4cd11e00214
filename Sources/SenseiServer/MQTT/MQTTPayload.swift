import SenseiModels

/// What an MQTT payload holds, read defensively: devices and brokers send
/// anything, and nothing they send may stop the messages after it.
enum MQTTPayload: Equatable {
    /// A number, or a boolean word, alone.
    case scalar(Double, ValueType)
    /// A JSON object, for a preset to pick apart.
    case object([String: JSONValue])

    /// Larger payloads are no sensor reading; refusing them early bounds the work.
    static let maximumBytes = 64 * 1024
    /// One message may make at most this many sensors.
    static let maximumLeaves = 256

    /// Reads a payload: JSON (a number, `true`/`false` or an object), or the
    /// words devices use for on and off.
    static func decode(_ bytes: [UInt8]) -> Result<MQTTPayload, MQTTDropReason> {
        guard bytes.count <= maximumBytes else { return .failure(.tooLarge) }
        guard let text = String(validating: bytes, as: UTF8.self) else { return .failure(.invalidUTF8) }
        if let flag = booleanWord(text) { return .success(.scalar(flag ? 1 : 0, .bool)) }
        let json: JSONValue
        do {
            json = try JSONParser.parse(bytes)
        } catch {
            if isNonFiniteWord(text) { return .failure(.notFinite) }
            // A payload that starts like JSON structure but does not parse is broken
            // JSON; anything else is text that is not a number.
            let first = text.utf8.first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
            return .failure(first == UInt8(ascii: "{") || first == UInt8(ascii: "[") ? .invalidJSON : .notANumber)
        }
        switch json {
        case .number(let value):
            return value.isFinite ? .success(.scalar(value, .float)) : .failure(.notFinite)
        case .bool(let flag):
            return .success(.scalar(flag ? 1 : 0, .bool))
        case .object(let members):
            return .success(.object(members))
        case .null, .string, .array:
            return .failure(.notANumber)
        }
    }

    /// Every numeric or boolean leaf of `object`, its key path joined with `.`
    /// (`{"AM2301":{"Temperature":21.3}}` → `AM2301.Temperature`). `ON`/`OFF`
    /// strings count as booleans (Zigbee2MQTT's `"state":"ON"`); arrays,
    /// other strings and non-finite numbers are skipped. Sorted by path, so a
    /// message always yields its sensors in one order.
    static func leaves(of object: [String: JSONValue], prefix: String = "") -> [(path: String, value: Double, type: ValueType)] {
        var found: [(path: String, value: Double, type: ValueType)] = []
        collect(object, prefix: prefix, depth: 0, into: &found)
        return found.sorted { $0.path < $1.path }
    }

    private static func collect(_ object: [String: JSONValue], prefix: String, depth: Int,
                                into found: inout [(path: String, value: Double, type: ValueType)]) {
        for (key, member) in object {
            let path = prefix.isEmpty ? key : prefix + "." + key
            switch member {
            case .number(let value) where value.isFinite:
                found.append((path, value, .float))
            case .bool(let flag):
                found.append((path, flag ? 1 : 0, .bool))
            case .string(let text):
                if let flag = booleanWord(text) { found.append((path, flag ? 1 : 0, .bool)) }
            case .object(let nested):
                collect(nested, prefix: path, depth: depth + 1, into: &found)
            default:
                continue
            }
        }
    }

    /// `ON`/`OFF` (ESPHome, Tasmota, Zigbee2MQTT), any case; `true`/`false` come as JSON.
    static func booleanWord(_ text: String) -> Bool? {
        switch text.trimmingWhitespace().lowercased() {
        case "on": true
        case "off": false
        default: nil
        }
    }

    private static func isNonFiniteWord(_ text: String) -> Bool {
        let word = text.trimmingWhitespace().lowercased()
        return ["nan", "-nan", "inf", "-inf", "+inf", "infinity", "-infinity", "+infinity"].contains(word)
    }
}
