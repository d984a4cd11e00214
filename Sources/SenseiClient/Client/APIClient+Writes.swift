import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SenseiModels

extension APIClient {
    /// One authorized request with a body; any answer comes back as its
    /// status and body (the caller decides what a 400 or a 503 means), only
    /// no answer at all throws.
    package func send(_ method: String, _ path: String, query: [URLQueryItem] = [], body: [UInt8],
              contentType: String = "application/json", gzip: Bool = false) async throws(SyncFailure)
        -> (status: Int, body: [UInt8]) {
        var request = URLRequest(url: try url(for: path, query: query))
        request.httpMethod = method
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        if gzip { request.setValue("gzip", forHTTPHeaderField: "Content-Encoding") }
        request.httpBody = Data(body)
        do {
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else {
                throw SyncFailure.invalidResponse("\(method) \(path): not an HTTP answer")
            }
            return (http.statusCode, [UInt8](data))
        } catch let failure as SyncFailure {
            throw failure
        } catch {
            throw Self.failure(for: error)
        }
    }

    /// `GET /sensors?label=K:V…`: the sensors with every one of these labels.
    public func sensors(labels: [(key: String, value: String)]) async throws(SyncFailure) -> [Sensor] {
        let query = labels.map { URLQueryItem(name: "label", value: "\($0.key):\($0.value)") }
        let body = try await get("/sensors", query: query)
        return try items(of: body, key: "sensors", route: "/sensors") { item throws(WireFormatError) in
            try Sensor(json: item)
        }
    }
}
