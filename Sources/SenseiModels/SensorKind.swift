/// How a sensor's values add up over time: a gauge is a level (°C, W) whose
/// use is its time integral; a counter is a running total (kWh) whose use is
/// how much it rose, a drop being a device restarting from 0.
public enum SensorKind: String, Sendable, Hashable, CaseIterable {
    case gauge
    case counter

    /// The units of usage: a counter's own; a gauge's with hours appended (W → Wh).
    public func usageUnits(forSensorUnits units: String) -> String {
        self == .counter ? units : units + "h"
    }
}
