/// The kinds of file `sensei import` reads, told from their content.
package enum ImportFormat: String, CaseIterable, Sendable {
    case lineProtocol = "lp"
    case csv
    case homeAssistant = "home-assistant"

    /// SQLite's header means a recorder database; otherwise the first line
    /// that is not a comment or an `influx_inspect` statement (inflated, for
    /// gzip): a CSV header or comma-separated fields without `=`, or line
    /// protocol (`measurement[,tags] field=value`).
    static func detect(_ path: String) throws(ImportError) -> ImportFormat {
        let head = try InputFile.head(of: path)
        if head.starts(with: Array("SQLite format 3\0".utf8)) { return .homeAssistant }
        let text = String(decoding: head, as: UTF8.self)
        var lines = text.split(whereSeparator: \.isNewline)
        // The last line of the head may be cut short: judge only whole lines when there are any.
        if lines.count > 1 && !text.hasSuffix("\n") { lines.removeLast() }
        for line in lines {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix("CREATE ") { continue }
            let lower = trimmed.lowercased().replacingOccurrences(of: "\"", with: "")
            if lower == "timestamp,value" || lower == "sensor,timestamp,value" { return .csv }
            if trimmed.contains("=") && trimmed.contains(" ") { return .lineProtocol }
            let fields = trimmed.split(separator: ",", omittingEmptySubsequences: false).count
            if (2...3).contains(fields) && !trimmed.contains("=") { return .csv }
            throw .unknownFormat(path)
        }
        throw .unknownFormat(path)
    }
}
