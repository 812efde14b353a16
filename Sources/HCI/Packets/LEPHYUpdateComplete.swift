/// HCI_LE_PHY_Update_Complete (subevent 0x0C, Vol 4 Part E §7.7.65.12).
public struct LEPHYUpdateComplete: Hashable, Sendable {
    public var status: HCIStatus
    public var handle: UInt16
    /// 0x01 LE 1M, 0x02 LE 2M, 0x03 LE Coded.
    public var txPHY: UInt8
    public var rxPHY: UInt8

    public init(decoding bytes: ArraySlice<UInt8>) throws(HCIDecodingError) {
        var r = PacketReader(bytes, structure: "LE PHY Update Complete")
        status = HCIStatus(try r.uint8("status"))
        handle = try r.uint16("connection handle") & 0x0FFF
        txPHY = try r.uint8("TX PHY")
        rxPHY = try r.uint8("RX PHY")
    }
}
