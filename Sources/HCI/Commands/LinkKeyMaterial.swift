/// The 128-bit key of an HCI encryption command (LE Enable Encryption, LE Long Term Key
/// Request Reply), least significant octet first as HCI carries it.
///
/// Its `description` and `debugDescription` print "<redacted>", so a logged request,
/// command or event that holds one never shows the key.
public struct LinkKeyMaterial: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The 16 octets, least significant first.
    public let bytes: [UInt8]

    /// Nil unless `bytes` has exactly 16 octets.
    public init?(_ bytes: some Collection<UInt8>) {
        guard bytes.count == 16 else { return nil }
        self.bytes = Array(bytes)
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
}
