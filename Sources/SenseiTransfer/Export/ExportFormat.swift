import SenseiModels

/// How `sensei export` writes readings.
package enum ExportFormat: String, CaseIterable, Sendable {
    /// InfluxDB line protocol, nanosecond timestamps.
    case lineProtocol = "lp"
    /// `sensor,timestamp,value`.
    case csv
}

/// The text before each reading's value and time, made once per sensor.
///
/// Line protocol follows the series model `/query` reads with: a sensor with
/// a `measurement` label is that measurement and its `field` label the field;
/// any other is measurement = its code, field `value`. Tags are its other
/// labels but `source` (InfluxDB drops an empty tag value, so it is left out),
/// keys in byte order, as InfluxDB sorts them. So `sensei import` of the file
/// finds the same series, and InfluxDB reads the same points.
struct ExportLinePrefix {
    static func lineProtocol(_ sensor: Sensor) -> [UInt8] {
        var labels = sensor.labels
        labels["source"] = nil
        let measurement = labels.removeValue(forKey: "measurement") ?? sensor.code
        let field = labels.removeValue(forKey: "field") ?? "value"
        var out: [UInt8] = []
        escape(measurement, special: [",", " "], into: &out)
        for key in labels.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
            guard let value = labels[key], !value.isEmpty else { continue }
            out.append(UInt8(ascii: ","))
            escape(key, special: [",", "=", " "], into: &out)
            out.append(UInt8(ascii: "="))
            escape(value, special: [",", "=", " "], into: &out)
        }
        out.append(UInt8(ascii: " "))
        escape(field, special: [",", "=", " "], into: &out)
        out.append(UInt8(ascii: "="))
        return out
    }

    static func csv(_ sensor: Sensor) -> [UInt8] {
        // A code is [A-Za-z0-9_-]: nothing to quote.
        Array(sensor.code.utf8) + [UInt8(ascii: ",")]
    }

    /// InfluxDB's escaping: a backslash before each special character. A
    /// newline cannot be escaped in line protocol; it becomes a space.
    private static func escape(_ text: String, special: [Character], into out: inout [UInt8]) {
        let specials = Set(special.map { UInt8(ascii: $0.unicodeScalars.first!) })
        for byte in text.utf8 {
            if byte == 0x0A || byte == 0x0D {
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: " ")])
                continue
            }
            if specials.contains(byte) { out.append(UInt8(ascii: "\\")) }
            out.append(byte)
        }
    }
}
