import BluetoothCore

/// Identity Address Information (Vol 3 Part H §3.6.5): the public or static random address
/// that the distributed IRK belongs to.
public struct IdentityAddressInformation: Hashable, Sendable, CustomStringConvertible {
    public static let code = SMPCode.identityAddressInformation
    public let address: SMPAddress

    public init(address: SMPAddress) {
        self.address = address
        addressTypeOctet = address.isRandom ? 0x01 : 0x00
    }

    init(parameters p: ArraySlice<UInt8>) {
        let s = p.startIndex
        let addressBytes = p[(s + 1)..<(s + 7)]
        let a = BluetoothAddress(addressBytes[s + 6], addressBytes[s + 5], addressBytes[s + 4],
                                 addressBytes[s + 3], addressBytes[s + 2], addressBytes[s + 1])
        address = SMPAddress(a, isRandom: p[s] & 0x01 == 0x01)
        addressTypeOctet = p[s]
    }

    /// The address type octet as received (0x00 public, 0x01 random; others are reserved).
    public private(set) var addressTypeOctet: UInt8 = 0

    func encode(into out: inout [UInt8]) {
        out.append(Self.code.rawValue)
        out.append(address.isRandom ? 0x01 : 0x00)
        out.append(contentsOf: address.address.littleEndianBytes)
    }

    public var description: String { "IdentityAddressInformation(\(address))" }
}
