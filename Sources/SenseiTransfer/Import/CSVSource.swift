import Foundation
import SenseiModels

/// Readings from CSV: `timestamp,value` as a sensor's `data.csv` gives (the
/// sensor named with `--sensor`), or `sensor,timestamp,value` as `sensei
/// export --format csv` writes. A header line is optional; timestamps are
/// RFC 3339 or epoch seconds; values numbers or true/false. A row that is
/// none of that is refused with its line number and the rest goes on.
/// Consecutive rows of one sensor go in one batch.
final class CSVSource: ImportSource {
    private let reader: LineReader
    private let file: InputFile
    private let sensor: String?
    let maximumItems: Int
    var refusals: [Refusal] = []
    private var pending: (code: String, item: ImportBatch.ReadingItem)?

    init(path: String, sensor: String?, maximumItems: Int = 10_000) throws(ImportError) {
        file = try InputFile(path: path)
        reader = LineReader(file: file)
        self.sensor = sensor
        self.maximumItems = maximumItems
    }

    var path: String { file.path }
    var bytesRead: Int64 { file.bytesRead }
    var size: Int64 { file.size }
    var skipped: [String: Int] { [:] }

    func nextBatch() async throws -> ImportBatch? {
        var code: String?
        var items: [ImportBatch.ReadingItem] = []
        if let pending {
            code = pending.code
            items.append(pending.item)
            self.pending = nil
        }
        while items.count < maximumItems, let row = try reader.nextLine({ String(decoding: $0, as: UTF8.self) }) {
            guard let parsed = parse(row, line: reader.lineNumber) else { continue }
            if code == nil { code = parsed.code }
            guard parsed.code == code else {
                pending = parsed
                break
            }
            items.append(parsed.item)
        }
        guard let code, !items.isEmpty else { return nil }
        return ImportBatch(payload: .readings(code: code, items: items), file: file.path,
                           lineNumbers: items.map(\.line), points: items.count)
    }

    private func parse(_ row: String, line: Int) -> (code: String, item: ImportBatch.ReadingItem)? {
        let fields = row.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        if fields.allSatisfy(\.isEmpty) { return nil }
        let code: String, timestampText: String, valueText: String
        switch fields.count {
        case 2:
            if line == 1 && fields == ["timestamp", "value"] { return nil }
            guard let sensor else {
                refuse(line, "a timestamp,value row names no sensor; pass --sensor CODE")
                return nil
            }
            (code, timestampText, valueText) = (sensor, fields[0], fields[1])
        case 3:
            if line == 1 && fields == ["sensor", "timestamp", "value"] { return nil }
            (code, timestampText, valueText) = (fields[0], fields[1], fields[2])
        default:
            refuse(line, "expected timestamp,value or sensor,timestamp,value, found \(fields.count) columns")
            return nil
        }
        if let problem = SensorCode.problem(with: code) {
            refuse(line, "sensor '\(code)': \(problem)")
            return nil
        }
        guard let timestamp = Timestamp(parameter: timestampText) else {
            refuse(line, "timestamp '\(timestampText)' is neither RFC 3339 nor epoch seconds")
            return nil
        }
        let value: Double
        switch valueText.lowercased() {
        case "true": value = 1
        case "false": value = 0
        default:
            guard let number = Double(valueText), number.isFinite else {
                refuse(line, "value '\(valueText)' is not a number")
                return nil
            }
            value = number
        }
        return (code, ImportBatch.ReadingItem(line: line, milliseconds: timestamp.milliseconds, value: value))
    }

    private func refuse(_ line: Int, _ reason: String) {
        refusals.append(Refusal(file: file.path, line: line, reason: reason))
    }
}
