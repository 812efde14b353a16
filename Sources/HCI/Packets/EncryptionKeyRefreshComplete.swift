/// HCI_Encryption_Key_Refresh_Complete (event 0x30, Vol 4 Part E §7.7.39): an encrypted
/// link was encrypted again (a new key started with LE Enable Encryption). With status
/// success the link stays encrypted, now with the new key.
public struct EncryptionKeyRefreshComplete: Hashable, Sendable {
    public static let code: UInt8 = 0x30
    public var status: HCIStatus
    public var handle: UInt16

    public init(status: HCIStatus, handle: UInt16) {
        self.status = status
        self.handle = handle
    }

    public init(decoding bytes: ArraySlice<UInt8>) throws(HCIDecodingError) {
        var r = PacketReader(bytes, structure: "Encryption Key Refresh Complete")
        status = HCIStatus(try r.uint8("status"))
        handle = try r.uint16("connection handle") & 0x0FFF
    }
}
