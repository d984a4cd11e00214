/// The waits on InfluxDB for async tests: the blocking calls, run off the
/// cooperative pool (`offThePool`). Same names: in an async function Swift
/// picks these, and asks for `await`.
extension InfluxDBServer {
    /// `shared`, whose first use starts influxd and waits for it.
    package static var sharedStarted: Result<InfluxDBServer, InfluxDBUnavailable> {
        get async { await offThePool { shared } }
    }

    /// `forImports`, likewise.
    package static var forImportsStarted: Result<InfluxDBServer, InfluxDBUnavailable> {
        get async { await offThePool { forImports } }
    }

    package func request(_ method: String, _ path: String, body: [UInt8]? = nil, contentType: String? = nil,
                         headers: [String: String] = [:]) async throws -> HTTPResponse {
        try await offThePool { try self.request(method, path, body: body, contentType: contentType, headers: headers) }
    }
}

extension InfluxInspect {
    package static func export(_ influx: InfluxDBServer, database: String, to path: String,
                               compress: Bool) async throws -> ToolResult {
        try await offThePool { try export(influx, database: database, to: path, compress: compress) }
    }
}
