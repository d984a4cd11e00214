import SenseiModels
import SenseiServer

extension SenseiStore {
    /// The sensor's usage counted as `kind`: sets its kind first, as an
    /// admin's PATCH would, since the store counts by the stored kind.
    func usage(of reference: SensorReference, as kind: SensorKind, _ query: UsageQuery) throws -> UsageReport {
        _ = try updateSensor(reference, name: nil, units: nil, valueType: nil, retentionDays: nil, labels: nil,
                             kind: kind, at: .now())
        return try usage(of: reference, query)
    }
}
