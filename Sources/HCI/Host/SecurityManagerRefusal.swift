/// The Security Manager (fixed channel 0x0006) of a host that cannot pair yet: every
/// pairing attempt is answered at once, so a peer never waits for an SMP timeout
/// (Vol 3 Part H §3.5.5, §3.6.7).
public enum SecurityManagerRefusal {
    /// SMP command codes used here.
    public enum Code {
        public static let pairingRequest: UInt8 = 0x01
        public static let pairingFailed: UInt8 = 0x05
        public static let securityRequest: UInt8 = 0x0B
        /// The highest code defined (Pairing Keypress Notification is 0x0E).
        public static let lastDefined: UInt8 = 0x0E
    }

    /// Pairing Failed reasons used here (Vol 3 Part H §3.5.5, Table 3.7).
    public enum Reason {
        public static let pairingNotSupported: UInt8 = 0x05
        public static let commandNotSupported: UInt8 = 0x07
    }

    /// Returns the SMP payload to send back, or nil when nothing must be sent.
    public static func answer(to payload: ArraySlice<UInt8>) -> [UInt8]? {
        guard let code = payload.first else { return nil }
        switch code {
        case Code.pairingFailed:
            // Answering a failure would start a ping-pong.
            return nil
        case Code.pairingRequest, Code.securityRequest:
            return [Code.pairingFailed, Reason.pairingNotSupported]
        case 0x00, (Code.lastDefined + 1)...:
            return [Code.pairingFailed, Reason.commandNotSupported]
        default:
            // Any other pairing step without a pairing in progress: still no pairing.
            return [Code.pairingFailed, Reason.pairingNotSupported]
        }
    }
}
