import BluetoothCore

/// How a characteristic value is read: the `decode:` names of the gateway config.
public enum ValueFormat: String, Hashable, Sendable, CaseIterable {
    /// Little-endian integers (u: unsigned, s: two's complement), an IEEE 754 float, UTF-8
    /// text, and the bytes as hex.
    case u8, u16le, s16le, u32le, s32le, float32le, utf8, hex
    /// Heart Rate Measurement (0x2A37, Heart Rate Service 1.0 §3.1).
    case heartRateMeasurement = "heart_rate_measurement"
    /// Battery Level (0x2A19): 0–100 %.
    case batteryLevel = "battery_level"
    /// Temperature (0x2A6E, GSS): sint16 × 0.01 °C; 0x8000 is "not known".
    case temperature
    /// Humidity (0x2A6F, GSS): uint16 × 0.01 %; 0xFFFF is "not known".
    case humidity
    /// Pressure (0x2A6D, GSS): uint32 × 0.1 Pa.
    case pressure

    /// The SIG characteristic the format is defined for, if any.
    public var characteristic: BluetoothUUID? {
        switch self {
        case .heartRateMeasurement: BluetoothUUID(0x2A37)
        case .batteryLevel: BluetoothUUID(0x2A19)
        case .temperature: BluetoothUUID(0x2A6E)
        case .humidity: BluetoothUUID(0x2A6F)
        case .pressure: BluetoothUUID(0x2A6D)
        default: nil
        }
    }

    /// The unit the format reports in when the config gives none.
    public var defaultUnit: String? {
        switch self {
        case .heartRateMeasurement: "bpm"
        case .batteryLevel, .humidity: "%"
        case .temperature: "°C"
        case .pressure: "Pa"
        default: nil
        }
    }

    /// The factor the specification applies to the raw integer (1 for plain integers).
    public var defaultScale: DecodedNumber {
        switch self {
        case .temperature, .humidity: DecodedNumber(significand: 1, exponent: -2)
        case .pressure: DecodedNumber(significand: 1, exponent: -1)
        default: DecodedNumber(1)
        }
    }
}
