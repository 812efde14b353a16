/// A decoded characteristic value or advertisement field, ready to publish.
///
/// Rendered by ``json(ts:rssi:via:)`` as `{"value": 72, "unit": "bpm", "hex": "0048"}`, then
/// the extra fields in order, then what the caller adds (its wall-clock timestamp, RSSI and
/// gateway name, which a value never reads itself).
public struct DecodedValue: Hashable, Sendable {
    /// An extra named field, such as `rr_intervals` or `sensor_contact`.
    public struct Field: Hashable, Sendable {
        /// The JSON member name.
        public var name: String
        /// The JSON member value.
        public var value: FieldValue
        /// The field `name`: `value`.
        public init(_ name: String, _ value: FieldValue) {
            self.name = name
            self.value = value
        }
    }

    /// The primary value: a number, string or bool (or null when the peer reports "unknown").
    public var value: FieldValue
    /// The unit of ``value``, such as `°C` or `bpm`; nil when unitless.
    public var unit: String?
    /// The raw bytes the value came from, as lowercase hex; nil when there are none.
    public var hex: String?
    /// Extra fields, in the order they are rendered.
    public var fields: [Field]

    /// A value with its unit, raw hex and extra fields.
    public init(value: FieldValue, unit: String? = nil, hex: String? = nil, fields: [Field] = []) {
        self.value = value
        self.unit = unit
        self.hex = hex
        self.fields = fields
    }

    /// The extra field called `name`.
    public subscript(field name: String) -> FieldValue? {
        fields.first { $0.name == name }?.value
    }

    /// The JSON object, with `extra` members appended after the value's own.
    public func json(appending extra: [Field]) -> String {
        var out = "{\"value\": "
        value.write(to: &out)
        if let unit {
            out += ", \"unit\": "
            writeJSONString(unit, to: &out)
        }
        if let hex {
            out += ", \"hex\": "
            writeJSONString(hex, to: &out)
        }
        for field in fields + extra {
            out += ", "
            writeJSONString(field.name, to: &out)
            out += ": "
            field.value.write(to: &out)
        }
        return out + "}"
    }

    /// The JSON object the gateway publishes: the value's members, then `ts` (wall-clock
    /// seconds, passed in), `rssi` (dBm) and `via` (the gateway's client id), each when given.
    public func json(ts: Double? = nil, rssi: Int? = nil, via: String? = nil) -> String {
        var extra: [Field] = []
        if let ts { extra.append(Field("ts", DecodedNumber(double: ts).map(FieldValue.number) ?? .null)) }
        if let rssi { extra.append(Field("rssi", .integer(rssi))) }
        if let via { extra.append(Field("via", .string(via))) }
        return json(appending: extra)
    }
}
