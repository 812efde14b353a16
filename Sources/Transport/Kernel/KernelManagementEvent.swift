/// A management-channel event that ``KernelPairingAgent`` acts on, decoded from the bytes
/// one read of the control socket returns: for tools, captures and fuzzing. Other events,
/// and packets whose lengths or fields do not hold together, decode to nil.
public enum KernelManagementEvent: Hashable, Sendable {
    /// User Confirmation Request, User Passkey Request or Passkey Notify.
    case pairingRequest(KernelPairingRequest)
    /// New Long Term Key, New Identity Resolving Key or New Signature Resolving Key.
    case key(KernelPairingKey)

    public init?(decoding bytes: [UInt8]) {
        guard let packet = MgmtPacket(decoding: bytes) else { return nil }
        self.init(packet)
    }

    init?(_ packet: MgmtPacket) {
        if let request = KernelPairingRequest(packet) {
            self = .pairingRequest(request)
        } else if let key = KernelPairingKey(packet) {
            self = .key(key)
        } else {
            return nil
        }
    }
}
