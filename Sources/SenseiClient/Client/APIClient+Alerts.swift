import SenseiModels

extension APIClient {
    /// `GET /alerts`: every rule with its state. A server from before alerts
    /// (404 on the route) has none.
    public func alerts() async throws(SyncFailure) -> [AlertStatus] {
        let body: JSONValue
        do {
            body = try await get("/alerts", query: [])
        } catch .server(status: 404, _) {
            return []
        }
        return try items(of: body, key: "alerts", route: "/alerts") { item throws(WireFormatError) in
            try AlertStatus(json: item)
        }
    }
}
