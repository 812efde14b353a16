/// HCI_LE_Connection_Update_Complete (LE Meta subevent 0x03, Vol 4 Part E §7.7.65.3):
/// the parameters a connection now uses, after either side changed them.
public struct LEConnectionUpdateComplete: Hashable, Sendable {
    public static let subevent: UInt8 = 0x03
    public var status: HCIStatus
    public var handle: UInt16
    /// In units of 1.25 ms.
    public var connectionInterval: UInt16
    public var peripheralLatency: UInt16
    /// In units of 10 ms.
    public var supervisionTimeout: UInt16

    /// Decodes the parameters that follow the subevent code.
    public init(decoding bytes: ArraySlice<UInt8>) throws(HCIDecodingError) {
        var r = PacketReader(bytes, structure: "LE Connection Update Complete")
        status = HCIStatus(try r.uint8("status"))
        handle = try r.uint16("connection handle") & 0x0FFF
        connectionInterval = try r.uint16("connection interval")
        peripheralLatency = try r.uint16("peripheral latency")
        supervisionTimeout = try r.uint16("supervision timeout")
    }
}
