import SenseiModels

/// `GET|POST /query`: InfluxQL, so Grafana's InfluxDB data source and Home
/// Assistant's influxdb sensor read from Sensei as from InfluxDB 1.8 (the
/// parser and executor are in `InfluxQL/`). Parameters come from the URL or,
/// for a form POST as Grafana sends it, the body: `q`, `db` (any name, one
/// store), `epoch`, `pretty`, `chunked`. A parse error is a 400 (under
/// `Accept: application/csv` as CSV); a failing statement an error in a
/// 200, and nothing after it runs.
struct InfluxQueryRoutes {
    let store: any SensorStore & ReadingStore & RollupStore

    func addRoutes(to router: inout Router) {
        router.add("GET", "/query", scope: .read) { request, _ in query(request) }
        router.add("POST", "/query", scope: .read) { request, _ in query(request) }
    }

    private func query(_ request: Request) -> Response {
        var parameters = request.query
        if request.contentType?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true {
            for (name, value) in FormDecoding.fields(request.body) where parameters[name] == nil
                || (name == "q" && parameters[name]!.allSatisfy(\.isWhitespace)) {
                parameters[name] = value
            }
        }
        let accept = request.accept?.lowercased() ?? ""
        let csv = accept.contains("application/csv") || accept.contains("text/csv")
        guard let text = parameters["q"], !text.allSatisfy(\.isWhitespace) else {
            return Self.error(#"missing required parameter "q""#, csv: csv)
        }
        let statements: [InfluxStatement]
        do {
            statements = try InfluxQLParser.parse(text)
        } catch {
            return Self.error("error parsing query: \(error)", csv: csv)
        }
        let format = InfluxOutputFormat(epoch: parameters["epoch"], pretty: parameters["pretty"] == "true")
        let chunked = parameters["chunked"] == "true"
        let results = InfluxStatementAnswers.answers(InfluxQueryExecutor(store: store).run(statements),
                                                     statements: statements.count, chunked: chunked)
        if csv {
            return Response(status: 200, headers: [("Content-Type", "application/csv"), InfluxResponses.versionHeader],
                            body: InfluxCSV.write(results, format: format))
        }
        var body: [UInt8] = []
        if chunked {
            // InfluxDB writes each statement's result as a JSON object of its own.
            for result in results { body += InfluxJSON.write([result], format: format) }
        } else {
            body = InfluxJSON.write(results, format: format)
        }
        return Response(status: 200, headers: [("Content-Type", Response.jsonType), InfluxResponses.versionHeader], body: body)
    }

    /// A 400 as /query gives it: InfluxDB's JSON formatter ends every body
    /// with a newline; its CSV formatter writes the error as a CSV table.
    private static func error(_ message: String, csv: Bool) -> Response {
        if csv {
            return Response(status: 400, headers: [("Content-Type", "application/csv"), ("X-Influxdb-Error", message),
                                                   InfluxResponses.versionHeader], body: InfluxCSV.error(message))
        }
        var response = InfluxResponses.v1Error(400, message)
        response.body.append(0x0A)
        return response
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
