import HCI

/// Who our host is to its peers across processes: the address it uses on the air and
/// the IRK it distributes with it when pairing, so a peer finds its bond with us again.
public struct HostIdentity: Hashable, Sendable, CustomStringConvertible {
    /// A static random address (its two top bits set).
    public var address: BluetoothAddress
    /// Our IRK, 16 octets.
    public var identityResolvingKey: [UInt8]

    public init(address: BluetoothAddress, identityResolvingKey: [UInt8]) {
        self.address = address
        self.identityResolvingKey = identityResolvingKey
    }

    /// A new identity: a static random address and an IRK from the system's CSPRNG.
    public static func generate() -> HostIdentity {
        var generator = SystemRandomNumberGenerator()
        var bytes = (0..<6).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[0] |= 0xC0
        // A static address may be neither all ones nor all zeros in its random part.
        if bytes[1...].allSatisfy({ $0 == 0 }) { bytes[5] = 1 }
        if bytes[0] == 0xFF, bytes[1...].allSatisfy({ $0 == 0xFF }) { bytes[5] = 0xFE }
        let irk = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return HostIdentity(address: BluetoothAddress(bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5]),
                            identityResolvingKey: irk)
    }

    public var description: String { "identity \(address) (static random), IRK <redacted>" }
}
