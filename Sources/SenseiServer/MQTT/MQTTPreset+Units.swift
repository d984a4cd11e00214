import SenseiModels

/// Units the ecosystems imply but do not send with each value. Home
/// Assistant discovery configs, when seen, take precedence.
extension MQTTPreset {
    /// Tasmota's SENSOR keys; temperatures and pressures follow the payload's
    /// `TempUnit` and `PressureUnit`.
    static let tasmotaUnits: [String: String] = [
        "Humidity": "%", "Illuminance": "lx", "CarbonDioxide": "ppm", "eCO2": "ppm", "TVOC": "ppb",
        "Power": "W", "ApparentPower": "VA", "ReactivePower": "VAr", "Voltage": "V", "Current": "A",
        "Total": "kWh", "Today": "kWh", "Yesterday": "kWh", "Frequency": "Hz", "Distance": "cm",
    ]

    /// Zigbee2MQTT's exposes, by property name.
    static let zigbeeUnits: [String: String] = [
        "temperature": "°C", "local_temperature": "°C", "device_temperature": "°C", "humidity": "%",
        "pressure": "hPa", "battery": "%", "voltage": "mV", "illuminance_lux": "lx", "co2": "ppm",
        "power": "W", "energy": "kWh", "current": "A", "soil_moisture": "%", "linkquality": "lqi",
    ]

    /// Shelly Gen2 status keys (switch, temperature, humidity, devicepower components).
    static let shellyUnits: [String: String] = [
        "apower": "W", "voltage": "V", "current": "A", "freq": "Hz", "total": "Wh",
        "tC": "°C", "tF": "°F", "rh": "%", "percent": "%", "V": "V", "lux": "lx",
    ]

    /// `tele/<topic>/SENSOR`: every value under the sensors' objects, with the
    /// unit the payload declares for temperatures and pressures.
    static func tasmotaPoints(_ object: [String: JSONValue], topic: String, device: String) -> [MQTTPoint] {
        let temperatureUnit = object["TempUnit"]?.stringValue.map { "°" + $0 }
        let pressureUnit = object["PressureUnit"]?.stringValue
        return MQTTPayload.leaves(of: object).map { leaf in
            let key = leaf.path.split(separator: ".").last.map(String.init) ?? leaf.path
            let units: String? = if key.contains("Temperature") || key == "DewPoint" {
                temperatureUnit
            } else if key.contains("Pressure") {
                pressureUnit
            } else {
                tasmotaUnits[key]
            }
            return MQTTPoint(topic: topic, device: device, field: leaf.path, value: leaf.value,
                             valueType: leaf.type, units: units)
        }
    }
}
