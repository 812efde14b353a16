/// HCI_LE_Long_Term_Key_Request (LE Meta subevent 0x05, Vol 4 Part E §7.7.65.5): the
/// central asked to encrypt a link on which we are the peripheral; the host answers with
/// LE Long Term Key Request Reply or Negative Reply.
public struct LELongTermKeyRequest: Hashable, Sendable {
    public static let subevent: UInt8 = 0x05
    public var handle: UInt16
    /// Random_Number: 0 for an STK or a Secure Connections LTK.
    public var random: UInt64
    /// Encrypted_Diversifier: 0 for an STK or a Secure Connections LTK.
    public var encryptedDiversifier: UInt16

    public init(handle: UInt16, random: UInt64, encryptedDiversifier: UInt16) {
        self.handle = handle
        self.random = random
        self.encryptedDiversifier = encryptedDiversifier
    }

    /// Decodes the parameters after the subevent code.
    public init(decoding bytes: ArraySlice<UInt8>) throws(HCIDecodingError) {
        var r = PacketReader(bytes, structure: "LE Long Term Key Request")
        handle = try r.uint16("connection handle") & 0x0FFF
        random = littleEndianUInt64(try r.slice(8, "random number"))
        encryptedDiversifier = try r.uint16("encrypted diversifier")
    }
}
