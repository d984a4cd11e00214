import Foundation
import SenseiModels

/// A cell of an answer.
enum InfluxValue: Equatable {
    case null
    case float(Double)
    case integer(Int64)
    case bool(Bool)
    case string(String)
    /// Nanoseconds: written as RFC 3339 or as an epoch number.
    case time(Int64)

    var number: Double? {
        switch self {
        case .float(let value): value
        case .integer(let value): Double(value)
        case .bool(let value): value ? 1 : 0
        default: nil
        }
    }
}

/// One series of an answer: `{"name", "tags", "columns", "values"}`.
struct InfluxResultSeries {
    var name: String?
    var tags: [(key: String, value: String)]?
    var columns: [String]
    var values: [[InfluxValue]]
    /// Cut at the row limit: more rows exist.
    var partial = false
}

/// What one statement gave: series (maybe none) or an error.
enum InfluxStatementResult {
    case series([InfluxResultSeries])
    case error(String)
}

/// How times and the body are written: the request's `epoch`, `pretty` and `tz()`.
struct InfluxOutputFormat {
    /// Nanoseconds per output unit; nil: RFC 3339.
    var epochDivisor: Int64?
    var pretty = false

    /// InfluxDB 1.6: any `epoch` but u, ms, s, m, h is nanoseconds, `µ`
    /// (U+00B5 or U+03BC) and `us` too (asked of the real one).
    init(epoch: String?, pretty: Bool) {
        self.pretty = pretty
        guard let epoch = epoch?.trimmingCharacters(in: .whitespaces), !epoch.isEmpty else { return }
        switch epoch {
        case "u": epochDivisor = 1_000
        case "ms": epochDivisor = 1_000_000
        case "s": epochDivisor = 1_000_000_000
        case "m": epochDivisor = 60_000_000_000
        case "h": epochDivisor = 3_600_000_000_000
        default: epochDivisor = 1
        }
    }
}

/// The JSON InfluxDB 1.8 writes: `{"results":[{"statement_id":0,"series":[…]}]}`
/// and a newline; NaN and infinities, which JSON cannot hold, as null.
enum InfluxJSON {
    static func write(_ results: [(id: Int, result: InfluxStatementResult, zone: TimeZoneBox?)],
                      format: InfluxOutputFormat) -> [UInt8] {
        var writer = JSONWriter(capacity: 1024)
        writer.beginObject()
        writer.key("results")
        writer.beginArray()
        for (id, result, zone) in results { writeResult(id, result, zone: zone, format: format, to: &writer) }
        writer.endArray()
        writer.endObject()
        var bytes = format.pretty ? InfluxPrettyJSON.indent(writer.bytes) : writer.bytes
        bytes.append(0x0A)
        return bytes
    }

    static func writeResult(_ id: Int, _ result: InfluxStatementResult, zone: TimeZoneBox?, format: InfluxOutputFormat,
                            to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("statement_id")
        writer.int(id)
        switch result {
        case .error(let message):
            writer.key("error")
            writer.string(message)
        case .series(let series) where !series.isEmpty:
            writer.key("series")
            writer.beginArray()
            for one in series { writeSeries(one, zone: zone, format: format, to: &writer) }
            writer.endArray()
        case .series:
            break
        }
        writer.endObject()
    }

    private static func writeSeries(_ series: InfluxResultSeries, zone: TimeZoneBox?, format: InfluxOutputFormat,
                                    to writer: inout JSONWriter) {
        writer.beginObject()
        if let name = series.name {
            writer.key("name")
            writer.string(name)
        }
        if let tags = series.tags {
            writer.key("tags")
            writer.beginObject()
            for (key, value) in tags {
                writer.key(key)
                writer.string(value)
            }
            writer.endObject()
        }
        writer.key("columns")
        writer.beginArray()
        for column in series.columns { writer.string(column) }
        writer.endArray()
        if !series.values.isEmpty {
            writer.key("values")
            writer.beginArray()
            for row in series.values {
                writer.beginArray()
                for value in row { write(value, zone: zone, format: format, to: &writer) }
                writer.endArray()
            }
            writer.endArray()
        }
        if series.partial {
            writer.key("partial")
            writer.bool(true)
        }
        writer.endObject()
    }

    private static func write(_ value: InfluxValue, zone: TimeZoneBox?, format: InfluxOutputFormat,
                              to writer: inout JSONWriter) {
        switch value {
        case .null: writer.null()
        case .float(let number): number.isFinite ? writer.number(number) : writer.null()
        case .integer(let number): writer.int(number)
        case .bool(let flag): writer.bool(flag)
        case .string(let text): writer.string(text)
        case .time(let ns):
            if let divisor = format.epochDivisor {
                writer.int(ns / divisor)
            } else {
                writer.string(InfluxTime.rfc3339(ns, zone: zone?.zone))
            }
        }
    }
}

/// InfluxDB's CSV (`Accept: application/csv`): `name,tags,<columns>` headers,
/// times as epoch numbers, a blank line between statements.
enum InfluxCSV {
    static func write(_ results: [(id: Int, result: InfluxStatementResult, zone: TimeZoneBox?)],
                      format: InfluxOutputFormat) -> [UInt8] {
        var out = ""
        var first = true
        for (_, result, _) in results {
            // A failing statement writes nothing: InfluxDB's CSV writer skips errors.
            guard case .series(let series) = result, !series.isEmpty else { continue }
            if !first { out += "\n" }
            first = false
            var columns: [String]?
            for one in series {
                if let columns, columns != one.columns { out += "\n" }
                if columns != one.columns {
                    out += line(["name", "tags"] + one.columns)
                    columns = one.columns
                }
                let tags = (one.tags ?? []).map { "\($0.key)=\($0.value)" }.joined(separator: ",")
                for row in one.values {
                    out += line([one.name ?? "", tags] + row.map { cell($0, format) })
                }
            }
        }
        return Array(out.utf8)
    }

    private static func cell(_ value: InfluxValue, _ format: InfluxOutputFormat) -> String {
        switch value {
        case .null: ""
        case .float(let number): number.isFinite ? formatNumber(number) : ""
        case .integer(let number): String(number)
        case .bool(let flag): flag ? "true" : "false"
        case .string(let text): text
        case .time(let ns): String(ns / (format.epochDivisor ?? 1))
        }
    }

    /// A request's error as InfluxDB writes it under CSV: an `error` column.
    static func error(_ message: String) -> [UInt8] {
        Array((line(["error"]) + line([message])).utf8)
    }

    /// One record, quoted as Go's encoding/csv quotes.
    private static func line(_ fields: [String]) -> String {
        fields.map { field in
            guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) || field.hasPrefix(" ")
            else { return field }
            return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }.joined(separator: ",") + "\n"
    }
}

/// A statement's `tz()`, carried beside its result for the time format.
struct TimeZoneBox {
    let zone: TimeZone
}
