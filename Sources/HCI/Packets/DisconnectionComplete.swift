/// HCI_Disconnection_Complete (event 0x05, Vol 4 Part E §7.7.5).
public struct DisconnectionComplete: Hashable, Sendable {
    public var status: HCIStatus
    public var handle: UInt16
    /// The HCI error code that says why the link went down (e.g. 0x13 remote user terminated).
    public var reason: HCIStatus

    public init(decoding bytes: ArraySlice<UInt8>) throws(HCIDecodingError) {
        var r = PacketReader(bytes, structure: "Disconnection Complete")
        status = HCIStatus(try r.uint8("status"))
        handle = try r.uint16("connection handle") & 0x0FFF
        reason = HCIStatus(try r.uint8("reason"))
    }
}
