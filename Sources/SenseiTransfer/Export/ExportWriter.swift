import Foundation
import SenseiModels

/// Writes readings to a file descriptor through a 1 MiB buffer, each one
/// line: line protocol `<prefix><value> <ns>` or CSV `<code>,<RFC 3339>,<value>`.
package final class ExportWriter {
    let format: ExportFormat
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private(set) var points = 0
    private static let flushAt = 1 << 20

    package init(format: ExportFormat, descriptor: Int32) {
        self.format = format
        self.descriptor = descriptor
        buffer.reserveCapacity(Self.flushAt + 4096)
        if format == .csv { buffer.append(contentsOf: Array("sensor,timestamp,value\n".utf8)) }
    }

    func prefix(for sensor: Sensor) -> [UInt8] {
        format == .lineProtocol ? ExportLinePrefix.lineProtocol(sensor) : ExportLinePrefix.csv(sensor)
    }

    func write(_ reading: Reading, prefix: [UInt8]) throws {
        buffer.append(contentsOf: prefix)
        switch format {
        case .lineProtocol:
            appendNumber(reading.value, to: &buffer)
            Self.appendNanoseconds(reading.timestamp.milliseconds, to: &buffer)
        case .csv:
            reading.timestamp.appendRFC3339(to: &buffer)
            buffer.append(UInt8(ascii: ","))
            appendNumber(reading.value, to: &buffer)
        }
        buffer.append(UInt8(ascii: "\n"))
        points += 1
        if buffer.count >= Self.flushAt { try flush() }
    }

    /// A scanned page's readings as the server wrote them: their value text
    /// goes out unchanged. Readings of sensors without a prefix (made after
    /// the sensor list was read) are left out. The page is written in one
    /// pass with the buffer held here, not a call and an access check a reading.
    func write(_ items: [BulkPageScanner.Item], of page: [UInt8], prefixes: [Int64: [UInt8]]) throws {
        var buffer = take()
        var count = 0
        defer {
            self.buffer = buffer
            points += count
        }
        var sensorId: Int64?
        var prefix: [UInt8]?
        for item in items {
            if item.sensorId != sensorId {
                sensorId = item.sensorId
                prefix = prefixes[item.sensorId]
            }
            guard let prefix else { continue }
            buffer.append(contentsOf: prefix)
            switch format {
            case .lineProtocol:
                buffer.append(contentsOf: page[item.value])
                Self.appendNanoseconds(item.milliseconds, to: &buffer)
            case .csv:
                buffer.append(contentsOf: page[item.timestamp])
                buffer.append(UInt8(ascii: ","))
                buffer.append(contentsOf: page[item.value])
            }
            buffer.append(UInt8(ascii: "\n"))
            count += 1
            if buffer.count >= Self.flushAt { try flush(&buffer) }
        }
    }

    func flush() throws {
        var buffer = take()
        defer { self.buffer = buffer }
        try flush(&buffer)
    }

    /// A line protocol line's timestamp after its field: Sensei keeps
    /// milliseconds, so the nanoseconds are six zeros more.
    private static func appendNanoseconds(_ milliseconds: Int64, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: " "))
        appendInteger(milliseconds, to: &buffer)
        buffer.append(contentsOf: [48, 48, 48, 48, 48, 48])
    }

    /// The buffer, moved out so that appending to it copies nothing.
    private func take() -> [UInt8] {
        var taken: [UInt8] = []
        swap(&taken, &buffer)
        return taken
    }

    private func flush(_ buffer: inout [UInt8]) throws {
        var offset = 0
        while offset < buffer.count {
            let written = buffer.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw ExportError.cannotWrite(String(cString: strerror(errno))) }
            offset += written
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

package enum ExportError: Error, CustomStringConvertible {
    case cannotWrite(String)
    case cannotOpen(String, String)

    package var description: String {
        switch self {
        case .cannotWrite(let reason): "cannot write the export: \(reason)"
        case .cannotOpen(let path, let reason): "cannot create \(path): \(reason)"
        }
    }
}
