/// HCI_Encryption_Change v1 (event 0x08) and v2 (event 0x59) (Vol 4 Part E §7.7.8).
public struct EncryptionChange: Hashable, Sendable {
    public var status: HCIStatus
    public var handle: UInt16
    /// 0x00 off, 0x01 on (AES-CCM for LE).
    public var encryptionEnabled: UInt8
    /// v2 only: the negotiated key size in octets.
    public var keySize: UInt8?

    public init(decoding bytes: ArraySlice<UInt8>, version2: Bool) throws(HCIDecodingError) {
        var r = PacketReader(bytes, structure: "Encryption Change")
        status = HCIStatus(try r.uint8("status"))
        handle = try r.uint16("connection handle") & 0x0FFF
        encryptionEnabled = try r.uint8("encryption enabled")
        keySize = version2 ? try r.uint8("encryption key size") : nil
    }
}
