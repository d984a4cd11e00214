import Foundation
import SenseiLineProtocol

/// Batches of line protocol from a file, plain or gzip, as written by
/// Telegraf, a script, or InfluxDB's `influx_inspect export`. That tool's
/// own lines are read, not sent: `# DDL`, `# DML` and other comments,
/// `# CONTEXT-DATABASE: name` (the `db` the following lines are written to,
/// so SHOW DATABASES lists it again) and its `CREATE DATABASE …` statements.
final class LineProtocolSource: ImportSource {
    private let reader: LineReader
    private let file: InputFile
    private var database: String
    let maximumLines: Int
    let maximumBytes: Int
    private(set) var stringFields = 0
    var refusals: [Refusal] = []

    /// At most `maximumLines` lines and about `maximumBytes` (the server's
    /// plain-body limit is 1 MiB; gzip'd, the batch is far under it).
    init(path: String, database: String = "sensei", maximumLines: Int = 10_000,
         maximumBytes: Int = 900_000) throws(ImportError) {
        file = try InputFile(path: path)
        reader = LineReader(file: file)
        self.database = database
        self.maximumLines = maximumLines
        self.maximumBytes = maximumBytes
    }

    var path: String { file.path }
    var bytesRead: Int64 { file.bytesRead }
    var size: Int64 { file.size }
    var skipped: [String: Int] { stringFields == 0 ? [:] : ["string fields (not numbers)": stringFields] }

    func nextBatch() async throws -> ImportBatch? {
        try readBatch()
    }

    private func readBatch() throws(ImportError) -> ImportBatch? {
        if let failure {
            self.failure = nil
            throw failure
        }
        var body: [UInt8] = []
        body.reserveCapacity(maximumBytes + 4096)
        var lineNumbers: [Int] = []
        var points = 0
        if let pending = pendingDatabase {
            database = pending
            pendingDatabase = nil
        }
        let batchDatabase = database
        do {
            while lineNumbers.count < maximumLines && body.count < maximumBytes {
                let done = try reader.nextLine { line -> Bool in
                    let trimmed = line.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
                    guard let first = trimmed.first else { return false }
                    if first == UInt8(ascii: "#") {
                        if let name = Self.contextDatabase(trimmed) {
                            // A batch goes to one database: a new context ends it.
                            pendingDatabase = name
                            return true
                        }
                        return false
                    }
                    if Self.isStatement(trimmed) { return false }
                    let fields = LineProtocolParser.fieldCounts(UnsafeBufferPointer(rebasing: trimmed))
                    stringFields += fields.strings
                    points += fields.numeric
                    body.append(contentsOf: line)
                    body.append(UInt8(ascii: "\n"))
                    lineNumbers.append(reader.lineNumber)
                    return false
                }
                guard let done else { break }
                if done { break }
            }
        } catch {
            // The lines read before a failure (a truncated gzip) still go; the error comes next call.
            let failure = error as? ImportError ?? .cannotRead(file.path, "\(error)")
            guard !lineNumbers.isEmpty else { throw failure }
            self.failure = failure
        }
        if lineNumbers.isEmpty {
            // Only a context line so far: go on under its database.
            if pendingDatabase != nil { return try readBatch() }
            return nil
        }
        return ImportBatch(payload: .lines(body: body, database: batchDatabase), file: file.path,
                           lineNumbers: lineNumbers, points: points)
    }

    private var pendingDatabase: String?
    private var failure: ImportError?

    /// `# CONTEXT-DATABASE: name` → name.
    static func contextDatabase(_ line: Slice<UnsafeBufferPointer<UInt8>>) -> String? {
        let prefix = Array("# CONTEXT-DATABASE:".utf8)
        guard line.starts(with: prefix) else { return nil }
        let name = String(decoding: line.dropFirst(prefix.count), as: UTF8.self).trimmingCharacters(in: [" ", "\t"])
        return name.isEmpty ? nil : name
    }

    /// InfluxQL that `influx_inspect export` writes into the DDL section
    /// (`CREATE DATABASE x WITH NAME autogen`): a statement, not a point.
    static func isStatement(_ line: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        line.first == UInt8(ascii: "C") && (line.starts(with: createDatabase) || line.starts(with: createPolicy))
    }

    private static let createDatabase = Array("CREATE DATABASE ".utf8)
    private static let createPolicy = Array("CREATE RETENTION POLICY ".utf8)
}
