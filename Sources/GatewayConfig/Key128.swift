import BluetoothCore

/// A 128-bit key from the config (a BTHome bindkey, an IRK), its bytes in the order written.
///
/// Prints as `<redacted>` (in `description`, `debugDescription` and `dump`), so that logs
/// and `--check` never show it.
public struct Key128: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The 16 bytes, first written first.
    public let bytes: [UInt8]

    /// Nil unless exactly 16 bytes.
    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// 32 hex digits, either case; nil otherwise.
    public init?(hex: String) {
        guard let bytes = parseHex(hex, separators: ""), bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

/// A secret string (the MQTT password). Prints as `<redacted>` everywhere.
public struct Secret: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The secret itself, for the one caller that hands it to the broker connection.
    public let value: String

    public init(_ value: String) {
        self.value = value
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
