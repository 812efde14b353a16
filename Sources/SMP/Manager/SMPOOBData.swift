/// LE Secure Connections OOB data (Vol 3 Part H §2.3.5.6.4): the random value r and the
/// confirm value C = f4(PKx, PKx, r, 0), both least significant octet first, carried to the
/// peer by some other channel (NFC, a QR code). r is secret until pairing: never printed.
public struct SMPOOBData: Hashable, Sendable, CustomStringConvertible {
    public let random: [UInt8]
    public let confirm: [UInt8]

    /// Nil unless both values have 16 octets.
    public init?(random: [UInt8], confirm: [UInt8]) {
        guard random.count == 16, confirm.count == 16 else { return nil }
        self.random = random
        self.confirm = confirm
    }

    public var description: String { "SMPOOBData(<redacted>)" }
}
