import SenseiModels

/// `GET|POST /query`: only what writers send at startup. `CREATE DATABASE`
/// succeeds (every database name writes to the one store, so there is nothing
/// to create), `SHOW DATABASES` lists the `db` asked about, as InfluxDB 1.x
/// answers them; any other statement gets InfluxDB's per-statement error
/// inside a 200, saying to read through Sensei's own API.
struct InfluxQueryRoutes {
    func addRoutes(to router: inout Router) {
        router.add("GET", "/query", scope: .read) { request, _ in query(request) }
        router.add("POST", "/query", scope: .read) { request, _ in query(request) }
    }

    private func query(_ request: Request) -> Response {
        // `q` in the URL (influxdb-python) or a form body (Telegraf).
        var text = request.query["q"] ?? ""
        if text.allSatisfy(\.isWhitespace), request.contentType?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true {
            text = FormDecoding.fields(request.body)["q"] ?? ""
        }
        let statements = text.split(separator: ";").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
        guard !statements.isEmpty else { return InfluxResponses.v1Error(400, #"missing required parameter "q""#) }
        let database = request.query["db"] ?? ""
        return InfluxResponses.json { writer in
            writer.beginObject()
            writer.key("results")
            writer.beginArray()
            for (index, statement) in statements.enumerated() {
                writer.beginObject()
                writer.key("statement_id")
                writer.int(index)
                let words = statement.split(whereSeparator: \.isWhitespace).prefix(2).map { $0.uppercased() }
                if words == ["CREATE", "DATABASE"] {
                    // Nothing to say: InfluxDB answers a created database with the id alone.
                } else if words == ["SHOW", "DATABASES"] {
                    writer.key("series")
                    writer.beginArray()
                    writer.beginObject()
                    writer.key("name")
                    writer.string("databases")
                    writer.key("columns")
                    writer.beginArray()
                    writer.string("name")
                    writer.endArray()
                    if !database.isEmpty {
                        writer.key("values")
                        writer.beginArray()
                        writer.beginArray()
                        writer.string(database)
                        writer.endArray()
                        writer.endArray()
                    }
                    writer.endObject()
                    writer.endArray()
                } else {
                    writer.key("error")
                    writer.string("Sensei answers only CREATE DATABASE and SHOW DATABASES here; read through its REST API (GET /sensors)")
                }
                writer.endObject()
            }
            writer.endArray()
            writer.endObject()
        }
    }
}

/// `application/x-www-form-urlencoded` bodies: `+` is a space, `%XX` a byte;
/// the first of a repeated name wins, as with the query string.
enum FormDecoding {
    static func fields(_ body: [UInt8]) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: UInt8(ascii: "&")) {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            let name = decode(parts[0])
            if fields[name] == nil { fields[name] = parts.count > 1 ? decode(parts[1]) : "" }
        }
        return fields
    }

    static func decode(_ bytes: ArraySlice<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), index + 2 < bytes.endIndex,
                      let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) {
                out.append(high << 4 | low)
                index += 2
            } else {
                out.append(byte)
            }
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
