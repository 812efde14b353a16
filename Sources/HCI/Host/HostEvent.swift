/// Something the host tells the application without having been asked.
public enum HostEvent: Hashable, Sendable {
    /// Initialisation finished; requests may be made.
    case ready(ControllerInfo)
    /// A scanner saw an advertisement or a scan response.
    case advertisingReport(AdvertisingReport)
    /// A connection came up, either one we initiated or one made to our advertising.
    case connected(ConnectionInfo)
    /// A connection went down, with the reason the controller reported.
    case disconnected(handle: UInt16, reason: HCIStatus)
    /// A connection ended because the host stopped (the transport closed, or the
    /// controller stopped answering); the link's fate in the controller is unknown.
    case connectionEnded(handle: UInt16, error: HostError)
    /// An ATT PDU arrived on the ATT fixed channel (CID 0x0004).
    case attributeData(handle: UInt16, pdu: [UInt8])
    /// The link's parameters changed (LE Connection Update Complete).
    case connectionParametersUpdated(LEConnectionUpdateComplete)
    /// The peer asked for new connection parameters over LE signaling, and we answered.
    case connectionParameterUpdateRequested(handle: UInt16, ConnectionParameters, accepted: Bool)
    /// The peer tried to open an LE credit-based channel; we refused (no CoC support yet).
    case creditBasedConnectionRefused(handle: UInt16, spsm: UInt16)
    /// The peer tried to pair; we answered Pairing Failed, Pairing Not Supported.
    case pairingRefused(handle: UInt16)
    /// The peer rejected a signaling command of ours, with this reason.
    case signalingCommandRejected(handle: UInt16, reason: UInt16)
    case dataLengthChanged(LEDataLengthChange)
    case phyUpdated(LEPHYUpdateComplete)
    case encryptionChanged(EncryptionChange)
    /// Input the host discarded and kept going.
    case warning(HostWarning)
}

/// One advertising report, legacy or extended, in one shape.
public struct AdvertisingReport: Hashable, Sendable {
    public var address: BluetoothAddress
    /// The advertiser's address type as reported: 0x00 public, 0x01 random, 0x02/0x03
    /// identity, 0xFF anonymous. Pass it back unchanged when connecting.
    public var addressType: UInt8
    /// Legacy event types map to their extended equivalents (Vol 4 Part E §7.7.65.13).
    public var eventType: UInt16
    public var rssi: Int8
    /// The advertising data or scan response data.
    public var data: [UInt8]

    public init(address: BluetoothAddress, addressType: UInt8, eventType: UInt16, rssi: Int8, data: [UInt8]) {
        self.address = address
        self.addressType = addressType
        self.eventType = eventType
        self.rssi = rssi
        self.data = data
    }

    public var isConnectable: Bool { eventType & 0x0001 != 0 }
    public var isScanResponse: Bool { eventType & 0x0008 != 0 }
    /// Data_Status: 0 complete, 1 more data to come, 2 truncated.
    public var dataStatus: UInt8 { UInt8(truncatingIfNeeded: (eventType >> 5) & 0x3) }
}
