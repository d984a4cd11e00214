import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SenseiModels

extension APIClient {
    /// `GET /sensors/<id>/usage`: usage per `interval` of `zone`'s calendar
    /// from the one holding `after` until `before`. A server older than the
    /// route answers 404, as for an unknown sensor: the caller tells them apart
    /// by whether the sensor is still listed.
    public func usage(sensorId: Int64, interval: UsageInterval, after: Timestamp, before: Timestamp,
                      zone: String) async throws(SyncFailure) -> UsageReport {
        let path = "/sensors/\(sensorId)/usage"
        let body = try await get(path, query: [
            URLQueryItem(name: "interval", value: interval.rawValue),
            URLQueryItem(name: "after", value: after.rfc3339),
            URLQueryItem(name: "before", value: before.rfc3339),
            URLQueryItem(name: "tz", value: zone),
        ])
        do {
            return try UsageReport(json: body)
        } catch {
            throw .invalidResponse("GET \(path): \(error)")
        }
    }
}
