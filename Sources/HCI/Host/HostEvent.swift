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
    /// The peer sent a Handle Value Indication before we had confirmed its previous one:
    /// an indication flood, which breaks ATT's sequential protocol (Vol 3 Part F
    /// §3.4.7.2, §3.3.2). The host delivers nothing more of the link's ATT and
    /// disconnects it; ``disconnected(handle:reason:)`` follows.
    case indicationBeforeConfirmation(handle: UInt16)
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
    /// The link's encryption turned on or off, or failed to start (Encryption Change, v1 or
    /// v2): `encryptionEnabled` is the link's new state when the status is success.
    case encryptionChanged(EncryptionChange)
    /// An encrypted link was encrypted again with a new key (Encryption Key Refresh
    /// Complete): with status success it is still encrypted, with the new key.
    case encryptionKeyRefreshed(EncryptionKeyRefreshComplete)
    /// An SMP PDU arrived on the Security Manager fixed channel (CID 0x0006); only with
    /// ``HostConfiguration/pairingEnabled`` (else the host refuses pairing itself).
    case securityManagerData(handle: UInt16, pdu: [UInt8])
    /// The central asked to encrypt a link on which we are the peripheral; answer with
    /// ``HostRequest/longTermKeyReply(handle:longTermKey:)`` or
    /// ``HostRequest/longTermKeyNegativeReply(handle:)``. Only with
    /// ``HostConfiguration/pairingEnabled`` (else the controller answers negatively itself).
    case longTermKeyRequested(LELongTermKeyRequest)
    /// Input the host discarded and kept going.
    case warning(HostWarning)
}
