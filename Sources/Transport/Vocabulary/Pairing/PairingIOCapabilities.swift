import SMP

/// What this device can show and take from its user while pairing (Vol 3 Part H §2.3.2);
/// with the peer's, it chooses the association model.
public enum PairingIOCapabilities: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// Neither display nor keyboard: Just Works only, never MITM protection.
    case noInputNoOutput = "none"
    /// Shows six digits (Passkey Entry, this side displays).
    case display
    /// Shows six digits and takes yes or no (Numeric Comparison with a capable peer).
    case displayYesNo = "display-yes-no"
    /// Takes six digits (Passkey Entry, this side types).
    case keyboard
    /// Both: Numeric Comparison with Secure Connections, Passkey Entry either way.
    case keyboardDisplay = "keyboard-display"

    public var description: String { rawValue }

    /// The IO Capability octet of the Pairing Request or Response.
    var smp: IOCapability {
        switch self {
        case .noInputNoOutput: .noInputNoOutput
        case .display: .displayOnly
        case .displayYesNo: .displayYesNo
        case .keyboard: .keyboardOnly
        case .keyboardDisplay: .keyboardDisplay
        }
    }
}
