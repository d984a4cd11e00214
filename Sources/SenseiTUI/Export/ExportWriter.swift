import Foundation
import SenseiModels

/// Writes readings to a file descriptor through a 1 MiB buffer, each one
/// line: line protocol `<prefix><value> <ns>` or CSV `<code>,<RFC 3339>,<value>`.
final class ExportWriter {
    let format: ExportFormat
    private let descriptor: Int32
    private var buffer: [UInt8] = []
    private(set) var points = 0
    private static let flushAt = 1 << 20

    init(format: ExportFormat, descriptor: Int32) {
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
            buffer.append(UInt8(ascii: " "))
            // Sensei keeps milliseconds: the nanoseconds are six zeros more.
            appendInteger(reading.timestamp.milliseconds)
            buffer.append(contentsOf: [48, 48, 48, 48, 48, 48])
        case .csv:
            reading.timestamp.appendRFC3339(to: &buffer)
            buffer.append(UInt8(ascii: ","))
            appendNumber(reading.value, to: &buffer)
        }
        buffer.append(UInt8(ascii: "\n"))
        points += 1
        if buffer.count >= Self.flushAt { try flush() }
    }

    /// A reading as the server wrote it: its value text goes out unchanged.
    func write(_ item: BulkPageScanner.Item, of page: [UInt8], prefix: [UInt8]) throws {
        buffer.append(contentsOf: prefix)
        switch format {
        case .lineProtocol:
            buffer.append(contentsOf: page[item.value])
            buffer.append(UInt8(ascii: " "))
            appendInteger(item.milliseconds)
            buffer.append(contentsOf: [48, 48, 48, 48, 48, 48])
        case .csv:
            buffer.append(contentsOf: page[item.timestamp])
            buffer.append(UInt8(ascii: ","))
            buffer.append(contentsOf: page[item.value])
        }
        buffer.append(UInt8(ascii: "\n"))
        points += 1
        if buffer.count >= Self.flushAt { try flush() }
    }

    func flush() throws {
        var offset = 0
        while offset < buffer.count {
            let written = buffer.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw ExportError.cannotWrite(String(cString: strerror(errno))) }
            offset += written
        }
        buffer.removeAll(keepingCapacity: true)
    }

    private func appendInteger(_ value: Int64) {
        if value < 0 {
            // Before 1970: the minus, then the digits of the magnitude with the zeros after.
            buffer.append(UInt8(ascii: "-"))
            appendInteger(-value)
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { raw in
            repeat {
                raw[19 - count] = UInt8(48 + rest % 10)
                rest /= 10
                count += 1
            } while rest > 0
            buffer.append(contentsOf: raw[(20 - count)...])
        }
    }
}

enum ExportError: Error, CustomStringConvertible {
    case cannotWrite(String)
    case cannotOpen(String, String)

    var description: String {
        switch self {
        case .cannotWrite(let reason): "cannot write the export: \(reason)"
        case .cannotOpen(let path, let reason): "cannot create \(path): \(reason)"
        }
    }
}
