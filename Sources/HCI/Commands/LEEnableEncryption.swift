/// HCI_LE_Enable_Encryption (Vol 4 Part E §7.8.24): the central starts (or refreshes)
/// encryption of a link with a key. Answered with Command Status; the outcome arrives as
/// Encryption Change, or Encryption Key Refresh Complete on a link already encrypted.
public struct LEEnableEncryption: HCICommand, Hashable, CustomStringConvertible {
    public static let opcode = HCIOpcode(ogf: 0x08, ocf: 0x0019)
    public var connectionHandle: UInt16
    /// Random_Number: 0 for an STK or a Secure Connections LTK.
    public var random: UInt64
    /// Encrypted_Diversifier: 0 for an STK or a Secure Connections LTK.
    public var encryptedDiversifier: UInt16
    public var longTermKey: LinkKeyMaterial

    public init(connectionHandle: UInt16, random: UInt64, encryptedDiversifier: UInt16, longTermKey: LinkKeyMaterial) {
        self.connectionHandle = connectionHandle
        self.random = random
        self.encryptedDiversifier = encryptedDiversifier
        self.longTermKey = longTermKey
    }

    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.appendLittleEndian(connectionHandle)
        buffer.appendLittleEndian(random)
        buffer.appendLittleEndian(encryptedDiversifier)
        buffer.append(contentsOf: longTermKey.bytes)
    }

    public var description: String {
        "LE Enable Encryption(handle 0x\(String(connectionHandle, radix: 16)), key <redacted>)"
    }
}
