import Foundation
import SenseiModels

/// Reads a `GET /readings` page as the server writes it (`JSONWriter`: no
/// spaces, keys in the order `id`, `code`, `data`; items `timestamp`, `value`)
/// without building a JSON tree: each reading's timestamp and value text are
/// found in place, and the value goes into the export as the
/// server wrote it. Parsing the page into `JSONValue`s cost the export more
/// CPU than the server spent answering. Any other shape gives nil, and the
/// caller falls back to the general parser.
struct BulkPageScanner {
    struct Item {
        var sensorId: Int64
        var milliseconds: Int64
        /// Where the timestamp's and the value's text are in the page.
        var timestamp: Range<Int>
        var value: Range<Int>
    }

    struct Page {
        var items: [Item] = []
        var next: String?
    }

    /// The page's readings in order, or nil when it has another shape (so
    /// nothing of a page is written unless all of it was read).
    static func scan(_ page: [UInt8]) -> Page? {
        var result = Page()
        result.items.reserveCapacity(page.count / 48)
        return page.withUnsafeBufferPointer { bytes -> Page? in
            var index = 0
            func expect(_ literal: StaticString) -> Bool {
                let count = literal.utf8CodeUnitCount
                guard index + count <= bytes.count,
                      memcmp(bytes.baseAddress! + index, literal.utf8Start, count) == 0 else { return false }
                index += count
                return true
            }
            func until(_ byte: UInt8) -> Range<Int>? {
                let start = index
                while index < bytes.count && bytes[index] != byte { index += 1 }
                return index < bytes.count ? start..<index : nil
            }
            guard expect("{\"series\":[") else { return nil }
            while !expect("]") {
                _ = expect(",")
                guard expect("{\"id\":"), let idText = until(UInt8(ascii: ",")),
                      let id = Int64(String(decoding: UnsafeBufferPointer(rebasing: bytes[idText]), as: UTF8.self)),
                      expect(",\"code\":\""), until(UInt8(ascii: "\"")) != nil, expect("\",\"data\":[") else { return nil }
                while !expect("]}") {
                    _ = expect(",")
                    guard expect("{\"timestamp\":\""), let time = until(UInt8(ascii: "\"")),
                          expect("\",\"value\":"), let value = until(UInt8(ascii: "}")) else { return nil }
                    index += 1
                    guard let parsed = Timestamp.parseRFC3339(UnsafeBufferPointer(rebasing: bytes[time])) else { return nil }
                    result.items.append(Item(sensorId: id, milliseconds: parsed.milliseconds, timestamp: time, value: value))
                }
            }
            guard expect(",\"next\":") else { return nil }
            if expect("null}") { return result }
            guard expect("\""), let cursor = until(UInt8(ascii: "\"")) else { return nil }
            result.next = String(decoding: UnsafeBufferPointer(rebasing: bytes[cursor]), as: UTF8.self)
            return result
        }
    }
}
