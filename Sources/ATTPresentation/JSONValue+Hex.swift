import ATT

extension JSONValue {
    /// Bytes as a JSON string of lowercase hex, `""` when there are none: machines parse
    /// JSON values, so the human "(empty)" of ``hexString(_:separator:empty:)`` never appears in them.
    public static func hex(_ bytes: some Collection<UInt8>) -> JSONValue {
        .string(hexString(bytes, empty: ""))
    }
}
