import SenseiModels

/// What one node tells the others through `node_events` (schema-postgres.sql):
/// the readings a group commit stored, or an alert event of the live stream.
/// Binary, little-endian, because a busy hub writes one readings event per
/// group commit: 16 bytes a reading plus a header a sensor.
enum NodeEvent: Sendable {
    /// What one transaction of another node stored: its stream listeners and,
    /// on the lease holder, the alert evaluator see it as a commit here.
    case readings([StoredReadings])
    /// An alert rule created, changed, deleted, or moved to another state:
    /// the stream event as sent (`AlertEvent.bytes`), the sensors whose
    /// listeners get it, and the rule (the lease holder reloads it).
    case alert(AlertEvent.Relayed)

    var kind: Int16 {
        switch self {
        case .readings: 1
        case .alert: 2
        }
    }

    /// The row's `body`.
    var body: [UInt8] {
        var buffer: [UInt8] = []
        switch self {
        case .readings(let written):
            buffer.reserveCapacity(4 + written.reduce(0) { $0 + 18 + $1.code.utf8.count + 16 * $1.readings.count })
            buffer.appendLittleEndian(UInt32(written.count))
            for stored in written {
                buffer.appendLittleEndian(stored.sensorID)
                buffer.appendLittleEndian(UInt32(stored.count))
                buffer.appendLittleEndian(UInt16(stored.code.utf8.count))
                buffer.append(contentsOf: stored.code.utf8)
                buffer.appendLittleEndian(UInt32(stored.readings.count))
                for reading in stored.readings {
                    buffer.appendLittleEndian(reading.timestamp.milliseconds)
                    buffer.appendLittleEndian(reading.value.bitPattern)
                }
            }
        case .alert(let event):
            buffer.appendLittleEndian(event.ruleID)
            buffer.append(event.isRuleChange ? 1 : 0)
            buffer.appendLittleEndian(UInt32(event.sensorIDs.count))
            for id in event.sensorIDs { buffer.appendLittleEndian(id) }
            buffer.append(contentsOf: event.bytes)
        }
        return buffer
    }

    /// The event a row holds; nil for a kind this node does not know (a
    /// newer node's) or a body that does not parse.
    init?(kind: Int16, body bytes: [UInt8]) {
        var body = LittleEndianReader(bytes[...])
        switch kind {
        case 1:
            guard let sensors = body.read(UInt32.self) else { return nil }
            var written: [StoredReadings] = []
            for _ in 0..<sensors {
                guard let sensorID = body.read(Int64.self),
                      let count = body.read(UInt32.self),
                      let codeLength = body.read(UInt16.self),
                      let code = body.readString(length: Int(codeLength)),
                      let readingCount = body.read(UInt32.self),
                      body.remaining >= Int(readingCount) * 16
                else { return nil }
                var readings: [Reading] = []
                readings.reserveCapacity(Int(readingCount))
                for _ in 0..<readingCount {
                    let milliseconds = body.read(Int64.self)!
                    let bits = body.read(UInt64.self)!
                    readings.append(Reading(timestamp: Timestamp(milliseconds: milliseconds),
                                            value: Double(bitPattern: bits)))
                }
                written.append(StoredReadings(sensorID: sensorID, code: code, count: Int(count), readings: readings))
            }
            self = .readings(written)
        case 2:
            guard let ruleID = body.read(Int64.self),
                  let ruleChange = body.read(UInt8.self),
                  let sensors = body.read(UInt32.self),
                  body.remaining >= Int(sensors) * 8
            else { return nil }
            let sensorIDs = (0..<sensors).map { _ in body.read(Int64.self)! }
            self = .alert(AlertEvent.Relayed(ruleID: ruleID, isRuleChange: ruleChange == 1,
                                             sensorIDs: Set(sensorIDs), bytes: Array(body.rest)))
        default:
            return nil
        }
    }
}

extension [UInt8] {
    /// Appends `value` in little-endian byte order (`NodeEvent`'s).
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }
}

/// Reads little-endian integers and UTF-8 strings off the front of bytes;
/// nil when too few are left.
struct LittleEndianReader {
    private(set) var rest: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) {
        rest = bytes
    }

    var remaining: Int { rest.count }

    mutating func read<T: FixedWidthInteger>(_ type: T.Type) -> T? {
        let size = MemoryLayout<T>.size
        guard rest.count >= size else { return nil }
        let value = rest.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(as: T.self)) }
        rest = rest.dropFirst(size)
        return value
    }

    mutating func readString(length: Int) -> String? {
        guard rest.count >= length else { return nil }
        defer { rest = rest.dropFirst(length) }
        return String(decoding: rest.prefix(length), as: UTF8.self)
    }
}
