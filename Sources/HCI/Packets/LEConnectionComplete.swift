/// HCI_LE_Connection_Complete (subevent 0x01) and HCI_LE_Enhanced_Connection_Complete
/// v1 (0x0A) and v2 (0x29) (Vol 4 Part E §7.7.65.1, §7.7.65.10).
///
/// The legacy event has no resolvable private addresses; those fields are nil there.
public struct LEConnectionComplete: Hashable, Sendable {
    public var status: HCIStatus
    public var handle: UInt16
    /// The role of the controller that sent the event.
    public var role: ConnectionRole
    public var peerAddressType: BluetoothAddressType
    public var peerAddress: BluetoothAddress
    /// Enhanced only; all-zero when the controller used no resolvable private address.
    public var localResolvablePrivateAddress: BluetoothAddress?
    public var peerResolvablePrivateAddress: BluetoothAddress?
    /// In units of 1.25 ms.
    public var connectionInterval: UInt16
    public var peripheralLatency: UInt16
    /// In units of 10 ms.
    public var supervisionTimeout: UInt16
    public var centralClockAccuracy: UInt8
    /// Enhanced v2 only.
    public var advertisingHandle: UInt8?
    public var syncHandle: UInt16?

    /// Decodes the parameters that follow the subevent code.
    public init(decoding bytes: ArraySlice<UInt8>, subevent: UInt8) throws(HCIDecodingError) {
        var r = PacketReader(bytes, structure: "LE Connection Complete")
        status = HCIStatus(try r.uint8("status"))
        handle = try r.uint16("connection handle") & 0x0FFF
        let roleOffset = r.offset
        let rawRole = try r.uint8("role")
        guard let role = ConnectionRole(rawValue: rawRole) else {
            throw r.error(.invalidValue(field: "role", value: Int(rawRole)), at: roleOffset)
        }
        self.role = role
        let typeOffset = r.offset
        let rawType = try r.uint8("peer address type")
        guard let type = BluetoothAddressType(rawValue: rawType) else {
            throw r.error(.invalidValue(field: "peer address type", value: Int(rawType)), at: typeOffset)
        }
        peerAddressType = type
        peerAddress = try r.address("peer address")
        if subevent == LEMetaSubevent.connectionComplete {
            localResolvablePrivateAddress = nil
            peerResolvablePrivateAddress = nil
        } else {
            localResolvablePrivateAddress = try r.address("local resolvable private address")
            peerResolvablePrivateAddress = try r.address("peer resolvable private address")
        }
        connectionInterval = try r.uint16("connection interval")
        peripheralLatency = try r.uint16("peripheral latency")
        supervisionTimeout = try r.uint16("supervision timeout")
        centralClockAccuracy = try r.uint8("central clock accuracy")
        if subevent == LEMetaSubevent.enhancedConnectionCompleteV2 {
            advertisingHandle = try r.uint8("advertising handle")
            syncHandle = try r.uint16("sync handle")
        } else {
            advertisingHandle = nil
            syncHandle = nil
        }
    }
}
