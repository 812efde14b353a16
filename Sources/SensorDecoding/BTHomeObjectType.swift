/// One row of the BTHome v2 object table (bthome.io/format): how an object id's data is
/// laid out and what it means.
public struct BTHomeObjectType: Hashable, Sendable {
    /// What an object reports, which decides how it is published.
    public enum Kind: Hashable, Sendable {
        /// A measurement: an integer × factor, in a unit.
        case sensor
        /// A binary sensor: one byte, 0 or 1.
        case binary
        /// A button or dimmer event: published as an event, never retained.
        case event
        /// UTF-8 text with a length byte.
        case text
        /// Raw bytes with a length byte, published as hex.
        case raw
        /// Seconds since 1970 (UTC), uint32.
        case timestamp
        /// A firmware version: its bytes, most significant last, joined with dots.
        case version
    }

    /// The object id.
    public let id: UInt8
    /// The snake-case property name readings are keyed by (`temperature`, `door`).
    public let property: String
    /// How the data is read.
    public let kind: Kind
    /// Data bytes after the id; for ``Kind/text`` and ``Kind/raw`` the length byte says.
    public let length: Int
    /// Whether the integer is two's complement.
    public let signed: Bool
    /// What the integer is multiplied by.
    public let factor: DecodedNumber
    /// The unit of the product, if any.
    public let unit: String?

    init(_ id: UInt8, _ property: String, _ kind: Kind = .sensor, length: Int = 1, signed: Bool = false,
         factor: DecodedNumber = DecodedNumber(1), unit: String? = nil) {
        self.id = id
        self.property = property
        self.kind = kind
        self.length = length
        self.signed = signed
        self.factor = factor
        self.unit = unit
    }

    /// The row for `id`, or nil when this decoder does not know it.
    public static func type(of id: UInt8) -> BTHomeObjectType? { table[Int(id)] }

    /// Indexed by object id; built once from ``rows``.
    private static let table: [BTHomeObjectType?] = {
        var table = [BTHomeObjectType?](repeating: nil, count: 256)
        for row in rows { table[Int(row.id)] = row }
        return table
    }()

    private static func e(_ exponent: Int) -> DecodedNumber { DecodedNumber(significand: 1, exponent: exponent) }

    /// The table of bthome.io/format as of its object 0x65. Binary sensors whose spec name
    /// is also a sensor's (battery, gas, moisture, power) get a suffix saying what true means,
    /// so one advertisement's keys stay unique. 0x3B (command) is left out: the spec's two
    /// examples give it different lengths, so a receiver that guessed would misread the rest.
    static let rows: [BTHomeObjectType] = [
        .init(0x00, "packet_id"),
        .init(0x01, "battery", unit: "%"),
        .init(0x02, "temperature", length: 2, signed: true, factor: e(-2), unit: "°C"),
        .init(0x03, "humidity", length: 2, factor: e(-2), unit: "%"),
        .init(0x04, "pressure", length: 3, factor: e(-2), unit: "hPa"),
        .init(0x05, "illuminance", length: 3, factor: e(-2), unit: "lx"),
        .init(0x06, "mass", length: 2, factor: e(-2), unit: "kg"),
        .init(0x07, "mass", length: 2, factor: e(-2), unit: "lb"),
        .init(0x08, "dew_point", length: 2, signed: true, factor: e(-2), unit: "°C"),
        .init(0x09, "count"),
        .init(0x0A, "energy", length: 3, factor: e(-3), unit: "kWh"),
        .init(0x0B, "power", length: 3, factor: e(-2), unit: "W"),
        .init(0x0C, "voltage", length: 2, factor: e(-3), unit: "V"),
        .init(0x0D, "pm2_5", length: 2, unit: "µg/m³"),
        .init(0x0E, "pm10", length: 2, unit: "µg/m³"),
        .init(0x0F, "generic_boolean", .binary),
        .init(0x10, "power_on", .binary),
        .init(0x11, "opening", .binary),
        .init(0x12, "co2", length: 2, unit: "ppm"),
        .init(0x13, "tvoc", length: 2, unit: "µg/m³"),
        .init(0x14, "moisture", length: 2, factor: e(-2), unit: "%"),
        .init(0x15, "battery_low", .binary),
        .init(0x16, "battery_charging", .binary),
        .init(0x17, "carbon_monoxide", .binary),
        .init(0x18, "cold", .binary),
        .init(0x19, "connectivity", .binary),
        .init(0x1A, "door", .binary),
        .init(0x1B, "garage_door", .binary),
        .init(0x1C, "gas_detected", .binary),
        .init(0x1D, "heat", .binary),
        .init(0x1E, "light", .binary),
        .init(0x1F, "lock", .binary),
        .init(0x20, "moisture_wet", .binary),
        .init(0x21, "motion", .binary),
        .init(0x22, "moving", .binary),
        .init(0x23, "occupancy", .binary),
        .init(0x24, "plug", .binary),
        .init(0x25, "presence", .binary),
        .init(0x26, "problem", .binary),
        .init(0x27, "running", .binary),
        .init(0x28, "safety", .binary),
        .init(0x29, "smoke", .binary),
        .init(0x2A, "sound", .binary),
        .init(0x2B, "tamper", .binary),
        .init(0x2C, "vibration", .binary),
        .init(0x2D, "window", .binary),
        .init(0x2E, "humidity", unit: "%"),
        .init(0x2F, "moisture", unit: "%"),
        .init(0x3A, "button", .event),
        .init(0x3C, "dimmer", .event, length: 2),
        .init(0x3D, "count", length: 2),
        .init(0x3E, "count", length: 4),
        .init(0x3F, "rotation", length: 2, signed: true, factor: e(-1), unit: "°"),
        .init(0x40, "distance", length: 2, unit: "mm"),
        .init(0x41, "distance", length: 2, factor: e(-1), unit: "m"),
        .init(0x42, "duration", length: 3, factor: e(-3), unit: "s"),
        .init(0x43, "current", length: 2, factor: e(-3), unit: "A"),
        .init(0x44, "speed", length: 2, factor: e(-2), unit: "m/s"),
        .init(0x45, "temperature", length: 2, signed: true, factor: e(-1), unit: "°C"),
        .init(0x46, "uv_index", factor: e(-1)),
        .init(0x47, "volume", length: 2, factor: e(-1), unit: "L"),
        .init(0x48, "volume", length: 2, unit: "mL"),
        .init(0x49, "volume_flow_rate", length: 2, factor: e(-3), unit: "m³/h"),
        .init(0x4A, "voltage", length: 2, factor: e(-1), unit: "V"),
        .init(0x4B, "gas", length: 3, factor: e(-3), unit: "m³"),
        .init(0x4C, "gas", length: 4, factor: e(-3), unit: "m³"),
        .init(0x4D, "energy", length: 4, factor: e(-3), unit: "kWh"),
        .init(0x4E, "volume", length: 4, factor: e(-3), unit: "L"),
        .init(0x4F, "water", length: 4, factor: e(-3), unit: "L"),
        .init(0x50, "timestamp", .timestamp, length: 4),
        .init(0x51, "acceleration", length: 2, factor: e(-3), unit: "m/s²"),
        .init(0x52, "gyroscope", length: 2, factor: e(-3), unit: "°/s"),
        .init(0x53, "text", .text),
        .init(0x54, "raw", .raw),
        .init(0x55, "volume_storage", length: 4, factor: e(-3), unit: "L"),
        .init(0x56, "conductivity", length: 2, unit: "µS/cm"),
        .init(0x57, "temperature", signed: true, unit: "°C"),
        .init(0x58, "temperature", signed: true, factor: DecodedNumber(significand: 35, exponent: -2), unit: "°C"),
        .init(0x59, "count", signed: true),
        .init(0x5A, "count", length: 2, signed: true),
        .init(0x5B, "count", length: 4, signed: true),
        .init(0x5C, "power", length: 4, signed: true, factor: e(-2), unit: "W"),
        .init(0x5D, "current", length: 2, signed: true, factor: e(-3), unit: "A"),
        .init(0x5E, "direction", length: 2, factor: e(-2), unit: "°"),
        .init(0x5F, "precipitation", length: 2, factor: e(-1), unit: "mm"),
        .init(0x60, "channel"),
        .init(0x61, "rotational_speed", length: 2, unit: "rpm"),
        .init(0x62, "speed", length: 4, signed: true, factor: e(-6), unit: "m/s"),
        .init(0x63, "acceleration", length: 4, signed: true, factor: e(-6), unit: "m/s²"),
        .init(0x64, "light_level"),
        .init(0x65, "settings_revision"),
        .init(0xF0, "device_type_id", length: 2),
        .init(0xF1, "firmware_version", .version, length: 4),
        .init(0xF2, "firmware_version", .version, length: 3),
    ]
}
