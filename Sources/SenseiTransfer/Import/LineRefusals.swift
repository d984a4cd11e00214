import SenseiLineProtocol

/// Finds the lines of a batch that `/write` refused. InfluxDB's answer names
/// each one by its text (`unable to parse '<line>': <why>`, one a line, after
/// `partial write: `), so each is looked up among the batch's lines to give
/// its file and line number.
enum LineRefusals {
    static func match(_ message: String, in body: [UInt8], batch: ImportBatch) -> BatchOutcome {
        var text = Substring(message)
        if text.hasPrefix("partial write: ") { text = text.dropFirst("partial write: ".count) }
        var dropped = 0
        if let range = text.range(of: " dropped=", options: .backwards), let count = Int(text[range.upperBound...]) {
            dropped = count
            text = text[..<range.lowerBound]
        }
        // The batch's lines (trimmed as the server trims them) to their index.
        var lines: [Substring: [Int]] = [:]
        let all = String(decoding: body, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        for (index, line) in all.enumerated() {
            lines[line.drop { $0 == " " || $0 == "\t" }, default: []].append(index)
        }
        var outcome = BatchOutcome()
        for entry in text.split(separator: "\n") {
            let prefix = "unable to parse '"
            guard entry.hasPrefix(prefix) else {
                // The store's refusal (a sensor past --max-sensors): no line to name.
                outcome.refused.append(Refusal(file: batch.file, line: nil, reason: String(entry)))
                continue
            }
            let rest = entry.dropFirst(prefix.count)
            var found: (index: Int, reason: Substring)?
            var search = rest.startIndex
            while found == nil, let quote = rest.range(of: "': ", range: search..<rest.endIndex) {
                if let index = lines[rest[..<quote.lowerBound]]?.first {
                    found = (index, rest[quote.upperBound...])
                }
                search = quote.upperBound
            }
            if let found, batch.lineNumbers.indices.contains(found.index) {
                outcome.refused.append(Refusal(file: batch.file, line: batch.lineNumbers[found.index],
                                               reason: String(found.reason)))
                outcome.refusedPoints += Self.numericFields(all[found.index])
            } else {
                outcome.refused.append(Refusal(file: batch.file, line: nil, reason: String(entry)))
            }
        }
        outcome.refusedPoints += dropped
        return outcome
    }

    private static func numericFields(_ line: Substring) -> Int {
        var text = String(line)
        return text.withUTF8 { LineProtocolParser.fieldCounts($0).numeric }
    }
}
