import SenseiModels

/// Answers in InfluxDB's shapes, which its clients branch on: 1.x errors are
/// `{"error": …}`, 2.x errors `{"code": …, "message": …}`; both carry the
/// message in `X-Influxdb-Error` too, and every answer `X-Influxdb-Version`.
enum InfluxResponses {
    /// What `/ping` and every answer report: the 1.x API Sensei speaks.
    static let version = "1.8.10"
    static let versionHeader = (name: "X-Influxdb-Version", value: version)

    static func noContent() -> Response { Response(status: 204, headers: [versionHeader]) }

    static func v1Error(_ status: Int, _ message: String) -> Response {
        json(status, message) { writer in
            writer.beginObject()
            writer.key("error")
            writer.string(message)
            writer.endObject()
        }
    }

    /// 2.x codes: `invalid` (400), `request too large` (413), `unprocessable entity` (422).
    static func v2Error(_ status: Int, code: String, _ message: String) -> Response {
        json(status, message) { writer in
            writer.beginObject()
            writer.key("code")
            writer.string(code)
            writer.key("message")
            writer.string(message)
            writer.endObject()
        }
    }

    static func json(_ status: Int = 200, _ error: String? = nil, _ write: (inout JSONWriter) -> Void) -> Response {
        var response = Response.json(status: status, write)
        response.headers.append(versionHeader)
        // A header holds one line: the first of a multi-line message.
        if let error { response.headers.append(("X-Influxdb-Error", String(error.prefix { $0 != "\n" }.prefix(1000)))) }
        return response
    }
}
