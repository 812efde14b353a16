import HCI

/// A question the kernel's SMP (or SSP) asks user space during pairing, read from the
/// management channel, for a ``KernelPairingHandler`` to answer.
public struct KernelPairingRequest: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable, CustomStringConvertible {
        /// User Confirmation Request with Confirm_Hint 1: Just Works, a plain yes or no.
        case justWorks
        /// User Confirmation Request with Confirm_Hint 0: numeric comparison; accept only
        /// when the peer shows the same six digits.
        case numericComparison(UInt32)
        /// User Passkey Request: the peer displays a passkey that must be entered here.
        case passkeyEntry
        /// Passkey Notify: show this passkey (the peer types it; `entered` digits so far).
        /// Informational: the kernel expects no reply.
        case passkeyDisplay(UInt32, entered: UInt8)

        public var description: String {
            switch self {
            case .justWorks: "Just Works confirmation"
            case .numericComparison(let value): "numeric comparison \(KernelPairingRequest.sixDigits(value))"
            case .passkeyEntry: "passkey entry"
            case .passkeyDisplay(let passkey, let entered): "display passkey \(KernelPairingRequest.sixDigits(passkey)) (\(entered) entered)"
            }
        }
    }

    public var peer: KernelPeer
    public var kind: Kind

    public init(peer: KernelPeer, kind: Kind) {
        self.peer = peer
        self.kind = kind
    }

    /// Whether the kernel waits for a reply (everything but Passkey Notify).
    public var needsAnswer: Bool {
        if case .passkeyDisplay = kind { return false }
        return true
    }

    public var description: String { "\(kind) from \(peer)" }

    static func sixDigits(_ value: UInt32) -> String {
        let digits = String(value % 1_000_000)
        return String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    static let userConfirmationRequestEvent: UInt16 = 0x000F
    static let userPasskeyRequestEvent: UInt16 = 0x0010
    static let passkeyNotifyEvent: UInt16 = 0x0017

    /// The request in a management event, or nil for other events and damaged packets:
    /// - User Confirmation Request: Address (6), Address_Type (1), Confirm_Hint (1), Value (4);
    /// - User Passkey Request: Address (6), Address_Type (1);
    /// - Passkey Notify: Address (6), Address_Type (1), Passkey (4), Entered (1).
    init?(_ packet: MgmtPacket) {
        var reader = MgmtReader(packet.parameters)
        switch packet.code {
        case Self.userConfirmationRequestEvent:
            guard let peer = reader.address(adapterIndex: packet.index), let hint = reader.uint8(),
                  let value = reader.uint32() else { return nil }
            self.init(peer: peer, kind: hint == 1 ? .justWorks : .numericComparison(value))
        case Self.userPasskeyRequestEvent:
            guard let peer = reader.address(adapterIndex: packet.index) else { return nil }
            self.init(peer: peer, kind: .passkeyEntry)
        case Self.passkeyNotifyEvent:
            guard let peer = reader.address(adapterIndex: packet.index), let passkey = reader.uint32(),
                  let entered = reader.uint8() else { return nil }
            self.init(peer: peer, kind: .passkeyDisplay(passkey, entered: entered))
        default:
            return nil
        }
    }
}
