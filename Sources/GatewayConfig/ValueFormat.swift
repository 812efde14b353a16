/// How a characteristic's value becomes a published value (`decode:` of a `gatt:` entry).
///
/// The names are the config's; SensorDecoding implements them.
public enum ValueFormat: String, Hashable, Sendable, CaseIterable {
    case u8, u16le, s16le, u32le, s32le, float32le
    case utf8, hex
    /// Heart Rate Measurement (0x2A37): flags, 8- or 16-bit rate, energy, RR intervals.
    case heart_rate_measurement
    /// Battery Level (0x2A19): a percentage.
    case battery_level
    /// Temperature (0x2A6E): sint16 in 0.01 °C.
    case temperature
    /// Humidity (0x2A6F): uint16 in 0.01 %.
    case humidity
    /// Pressure (0x2A6D): uint32 in 0.1 Pa.
    case pressure

    /// True for the plain integer and float formats, the ones `scale` and `unit` apply to.
    public var isPlainNumber: Bool {
        switch self {
        case .u8, .u16le, .s16le, .u32le, .s32le, .float32le: return true
        default: return false
        }
    }

    /// True for formats that carry text or bytes, not a number.
    public var isText: Bool { self == .utf8 || self == .hex }
}
