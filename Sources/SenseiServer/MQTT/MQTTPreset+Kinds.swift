import SenseiModels

/// The running totals the ecosystems publish without saying so with each
/// value: their energy meters, which count up and start again from 0 when
/// the device restarts. Home Assistant discovery's `state_class`, when seen,
/// takes precedence (`HomeAssistantDiscovery.Entry.kind`).
extension MQTTPreset {
    /// What this preset's `field` is known to be; nil for everything else
    /// (a gauge, unless discovery says otherwise).
    func kind(ofField field: String) -> SensorKind? {
        let counter: Bool = switch self {
        // The `total_daily_energy` platform's default object id (kWh since midnight).
        case .esphome: field == "total_daily_energy"
        // `{"ENERGY":{"Total":12.3,"Power":45,…}}`: Total in kWh; Today and
        // Yesterday are the day's, Power a level.
        case .tasmota: field == "ENERGY.Total"
        // `{"aenergy":{"total":1234.5,…},"apower":…}` of `switch:0`, `pm1:0`…
        // (field `switch:0.aenergy.total`), in Wh; `ret_aenergy` is the
        // energy a Pro device returned to the grid, counted alike.
        case .shelly: field.hasSuffix(".aenergy.total") || field.hasSuffix(".ret_aenergy.total")
        case .zigbee2mqtt, .homeassistant: false
        }
        return counter ? .counter : nil
    }
}
