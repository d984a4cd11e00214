/// Sensor labels: string keys to string values that say where a sensor is and
/// where its readings come from (`source`, `device`, `room`). At most
/// `maximumCount` pairs, keys `[A-Za-z0-9_.-]{1,64}`, values up to
/// `maximumValueBytes` UTF-8 bytes.
public enum SensorLabels {
    public static let maximumCount = 32
    public static let maximumKeyLength = 64
    public static let maximumValueBytes = 256

    /// Why `key` is not a valid label key, or nil when it is.
    public static func problem(withKey key: String) -> String? {
        if key.isEmpty { return "label key is empty" }
        if key.utf8.count > maximumKeyLength { return "label key is longer than \(maximumKeyLength) characters" }
        if !key.utf8.allSatisfy(isKeyByte) {
            return "label key '\(key)' may only hold letters, digits, '_', '.' and '-'"
        }
        return nil
    }

    /// Why `value` is not a valid label value, or nil when it is.
    public static func problem(withValue value: String) -> String? {
        if value.utf8.count > maximumValueBytes { return "label value is longer than \(maximumValueBytes) bytes" }
        // SQLite would keep text only up to a NUL: refuse it rather than cut it.
        if value.utf8.contains(0) { return "label value must not contain NUL (\\u0000)" }
        return nil
    }

    /// Labels as an ingest path found them (tag keys, topics), made to fit the
    /// rules instead of refused: a reading is never lost to a long tag. Keys
    /// get `_` for each byte outside the key alphabet and are cut at 64;
    /// values are cut at 256 bytes on a character boundary; past 32 pairs,
    /// `source` and then the first keys in byte order are kept. Two keys that
    /// become one keep the value of the first in byte order.
    public static func fitted(_ labels: [String: String]) -> [String: String] {
        if labels.count <= maximumCount,
           labels.allSatisfy({ problem(withKey: $0.key) == nil && problem(withValue: $0.value) == nil }) {
            return labels
        }
        var fitted: [String: String] = [:]
        let ordered = labels.keys.sorted { a, b in
            a == "source" || b != "source" && a.utf8.lexicographicallyPrecedes(b.utf8)
        }
        for key in ordered where fitted.count < maximumCount {
            let fittedKey = fittedKey(key)
            if fitted[fittedKey] == nil { fitted[fittedKey] = fittedValue(labels[key]!) }
        }
        return fitted
    }

    static func fittedKey(_ key: String) -> String {
        let bytes = key.utf8.prefix(maximumKeyLength).map { isKeyByte($0) ? $0 : UInt8(ascii: "_") }
        return bytes.isEmpty ? "_" : String(decoding: bytes, as: UTF8.self)
    }

    static func fittedValue(_ value: String) -> String {
        var value = value.utf8.contains(0) ? String(value.filter { $0 != "\0" }) : value
        while value.utf8.count > maximumValueBytes { value.removeLast() }
        return value
    }

    private static func isKeyByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }

    /// Writes labels as a JSON object, keys in byte order: the same labels
    /// always serialize the same.
    public static func write(_ labels: [String: String], to writer: inout JSONWriter) {
        writer.beginObject()
        for key in labels.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            writer.key(key)
            writer.string(labels[key]!)
        }
        writer.endObject()
    }
}
