import BluetoothCore

/// A device address with the one bit SMP needs about its type: public (0) or random (1).
/// c1 and f5/f6 mix both into their results.
public struct SMPAddress: Hashable, Sendable, CustomStringConvertible {
    public var address: BluetoothAddress
    public var isRandom: Bool

    public init(_ address: BluetoothAddress, isRandom: Bool) {
        self.address = address
        self.isRandom = isRandom
    }

    /// The type octet (0x00 public, 0x01 random).
    public var typeOctet: UInt8 { isRandom ? 0x01 : 0x00 }

    /// A1/A2 of f5 and f6, least significant octet first: the address, then the type octet.
    var f5Bytes: [UInt8] { address.littleEndianBytes + [typeOctet] }

    public var description: String { "\(address) (\(isRandom ? "random" : "public"))" }
}
