/// One reading as the live stream (`GET /stream`) pushes it, the `data:` of
/// an `event: reading`: `{"sensor":code,"id":…,"timestamp":…,"value":…}`.
/// Written by the server, read by the dashboard, echoed by `sensei watch --json`.
public struct LiveReading: Hashable, Sendable {
    public var sensorId: Int64
    public var code: String
    public var reading: Reading

    public init(sensorId: Int64, code: String, reading: Reading) {
        self.sensorId = sensorId
        self.code = code
        self.reading = reading
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writeFields(to: &writer)
        writer.endObject()
    }

    /// The keys without the braces, for a line that adds its own around them.
    public func writeFields(to writer: inout JSONWriter) {
        writer.key("sensor")
        writer.string(code)
        writer.key("id")
        writer.int(sensorId)
        reading.writeFields(to: &writer)
    }

    public init(json: JSONValue) throws(WireFormatError) {
        guard let code = json["sensor"]?.stringValue, let id = json["id"]?.intValue else {
            throw WireFormatError("reading event without sensor and id")
        }
        self.init(sensorId: Int64(id), code: code, reading: try Reading(json: json))
    }
}

extension LiveReading: JSONWritable {}
