/// HCI_LE_Data_Length_Change (subevent 0x07, Vol 4 Part E §7.7.65.7).
public struct LEDataLengthChange: Hashable, Sendable {
    public var handle: UInt16
    public var maxTxOctets: UInt16
    /// Microseconds.
    public var maxTxTime: UInt16
    public var maxRxOctets: UInt16
    public var maxRxTime: UInt16

    public init(decoding bytes: ArraySlice<UInt8>) throws(HCIDecodingError) {
        var r = PacketReader(bytes, structure: "LE Data Length Change")
        handle = try r.uint16("connection handle") & 0x0FFF
        maxTxOctets = try r.uint16("max TX octets")
        maxTxTime = try r.uint16("max TX time")
        maxRxOctets = try r.uint16("max RX octets")
        maxRxTime = try r.uint16("max RX time")
    }
}
