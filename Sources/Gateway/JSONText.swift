import SensorDecoding

/// JSON text pieces the gateway's payloads are made of (values come as JSON already,
/// from SensorDecoding's renderings).
enum JSONText {
    /// `text` as a JSON string (SensorDecoding's escaping, the one the values use).
    static func quoted(_ text: String) -> String {
        var out = ""
        writeJSONString(text, to: &out)
        return out
    }

    /// An object from already-rendered JSON values, in the given order.
    static func object(_ fields: [(String, String)]) -> String {
        "{" + fields.map { "\(quoted($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
    }

    /// A finite number, as JSON; `null` for NaN and infinities.
    static func number(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}
