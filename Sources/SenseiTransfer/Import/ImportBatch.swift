import SenseiModels

/// One request's worth of an import, and where each of its items came from,
/// so a refusal names the file and line.
struct ImportBatch: Sendable {
    enum Payload: Sendable {
        /// Line protocol for `POST /write`, the lines as they were in the file.
        case lines(body: [UInt8], database: String)
        /// Readings of one sensor for `POST /sensors/<code>/data`.
        case readings(code: String, items: [ReadingItem])
    }

    struct ReadingItem: Sendable {
        var line: Int
        var milliseconds: Int64
        var value: Double
    }

    var payload: Payload
    var file: String
    /// The source line of each line (line protocol) or item (readings).
    var lineNumbers: [Int]
    /// Readings the batch carries (numeric fields of its lines).
    var points: Int
}

/// A line or item the server (or the reader) refused.
struct Refusal: Sendable, Equatable {
    var file: String
    var line: Int?
    var reason: String

    var description: String { line.map { "\(file):\($0): \(reason)" } ?? "\(file): \(reason)" }
}

/// What became of a batch.
struct BatchOutcome: Sendable {
    var stored = 0
    var refused: [Refusal] = []
    /// Points of the refused lines or items.
    var refusedPoints = 0
}

extension ImportBatch.Payload {
    /// `{"data":[{"timestamp":"…","value":…},…]}`.
    static func json(_ items: [ImportBatch.ReadingItem]) -> [UInt8] {
        var writer = JSONWriter(capacity: 16 + items.count * 48)
        writer.beginObject()
        writer.key("data")
        writer.beginArray()
        for item in items {
            Reading(timestamp: Timestamp(milliseconds: item.milliseconds), value: item.value).write(to: &writer)
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }
}
