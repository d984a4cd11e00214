import NIOCore
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
    var body: ByteBuffer {
        var buffer = ByteBuffer()
        switch self {
        case .readings(let written):
            buffer.writeInteger(UInt32(written.count), endianness: .little)
            for stored in written {
                buffer.writeInteger(stored.sensorID, endianness: .little)
                buffer.writeInteger(UInt32(stored.count), endianness: .little)
                buffer.writeInteger(UInt16(stored.code.utf8.count), endianness: .little)
                buffer.writeString(stored.code)
                buffer.writeInteger(UInt32(stored.readings.count), endianness: .little)
                for reading in stored.readings {
                    buffer.writeInteger(reading.timestamp.milliseconds, endianness: .little)
                    buffer.writeInteger(reading.value.bitPattern, endianness: .little)
                }
            }
        case .alert(let event):
            buffer.writeInteger(event.ruleID, endianness: .little)
            buffer.writeInteger(UInt8(event.isRuleChange ? 1 : 0))
            buffer.writeInteger(UInt32(event.sensorIDs.count), endianness: .little)
            for id in event.sensorIDs { buffer.writeInteger(id, endianness: .little) }
            buffer.writeBytes(event.bytes)
        }
        return buffer
    }

    /// The event a row holds; nil for a kind this node does not know (a
    /// newer node's) or a body that does not parse.
    init?(kind: Int16, body: ByteBuffer) {
        var body = body
        switch kind {
        case 1:
            guard let sensors = body.readInteger(endianness: .little, as: UInt32.self) else { return nil }
            var written: [StoredReadings] = []
            for _ in 0..<sensors {
                guard let sensorID = body.readInteger(endianness: .little, as: Int64.self),
                      let count = body.readInteger(endianness: .little, as: UInt32.self),
                      let codeLength = body.readInteger(endianness: .little, as: UInt16.self),
                      let code = body.readString(length: Int(codeLength)),
                      let readingCount = body.readInteger(endianness: .little, as: UInt32.self),
                      body.readableBytes >= Int(readingCount) * 16
                else { return nil }
                var readings: [Reading] = []
                readings.reserveCapacity(Int(readingCount))
                for _ in 0..<readingCount {
                    let milliseconds = body.readInteger(endianness: .little, as: Int64.self)!
                    let bits = body.readInteger(endianness: .little, as: UInt64.self)!
                    readings.append(Reading(timestamp: Timestamp(milliseconds: milliseconds),
                                            value: Double(bitPattern: bits)))
                }
                written.append(StoredReadings(sensorID: sensorID, code: code, count: Int(count), readings: readings))
            }
            self = .readings(written)
        case 2:
            guard let ruleID = body.readInteger(endianness: .little, as: Int64.self),
                  let ruleChange = body.readInteger(as: UInt8.self),
                  let sensors = body.readInteger(endianness: .little, as: UInt32.self),
                  body.readableBytes >= Int(sensors) * 8
            else { return nil }
            let sensorIDs = (0..<sensors).map { _ in body.readInteger(endianness: .little, as: Int64.self)! }
            self = .alert(AlertEvent.Relayed(ruleID: ruleID, isRuleChange: ruleChange == 1,
                                             sensorIDs: Set(sensorIDs), bytes: Array(body.readableBytesView)))
        default:
            return nil
        }
    }
}
