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
