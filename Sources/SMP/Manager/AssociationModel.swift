/// How the two devices authenticate each other (Vol 3 Part H §2.3.5.1).
public enum AssociationModel: Hashable, Sendable, CustomStringConvertible {
    case justWorks
    case numericComparison
    /// Passkey Entry: who shows the six digits and who types them.
    case passkeyEntry(PasskeyRoles)
    case outOfBand

    public enum PasskeyRoles: Hashable, Sendable {
        case initiatorDisplays
        case responderDisplays
        /// Both users type the same passkey (KeyboardOnly on both sides).
        case bothInput
    }

    /// True for every model but Just Works: the result resists a man in the middle.
    public var isAuthenticated: Bool { self != .justWorks }

    public var description: String {
        switch self {
        case .justWorks: "Just Works"
        case .numericComparison: "Numeric Comparison"
        case .passkeyEntry(.initiatorDisplays): "Passkey Entry (initiator displays)"
        case .passkeyEntry(.responderDisplays): "Passkey Entry (responder displays)"
        case .passkeyEntry(.bothInput): "Passkey Entry (both input)"
        case .outOfBand: "Out of Band"
        }
    }

    /// The model for a pairing (§2.3.5.1, Tables 2.6–2.8): OOB first, then MITM, then the
    /// IO capability table.
    static func select(initiator: PairingFeatures, responder: PairingFeatures, secureConnections: Bool) -> AssociationModel {
        let iOOB = initiator.oobDataFlag == 0x01, rOOB = responder.oobDataFlag == 0x01
        if secureConnections ? (iOOB || rOOB) : (iOOB && rOOB) { return .outOfBand }
        let mitm = initiator.authenticationRequirements.contains(.mitm) || responder.authenticationRequirements.contains(.mitm)
        if !mitm { return .justWorks }
        return fromIOCapabilities(initiator: initiator.ioCapability, responder: responder.ioCapability,
                                  secureConnections: secureConnections)
    }

    /// Table 2.8: the responder's capability picks the row, the initiator's the column.
    static func fromIOCapabilities(initiator i: IOCapability, responder r: IOCapability, secureConnections sc: Bool) -> AssociationModel {
        if i == .noInputNoOutput || r == .noInputNoOutput { return .justWorks }
        switch (r, i) {
        case (.displayOnly, .keyboardOnly), (.displayOnly, .keyboardDisplay): return .passkeyEntry(.responderDisplays)
        case (.displayOnly, _): return .justWorks
        case (.displayYesNo, .displayYesNo): return sc ? .numericComparison : .justWorks
        case (.displayYesNo, .keyboardOnly): return .passkeyEntry(.responderDisplays)
        case (.displayYesNo, .keyboardDisplay): return sc ? .numericComparison : .passkeyEntry(.responderDisplays)
        case (.displayYesNo, _): return .justWorks
        case (.keyboardOnly, .keyboardOnly): return .passkeyEntry(.bothInput)
        case (.keyboardOnly, _): return .passkeyEntry(.initiatorDisplays)
        case (.keyboardDisplay, .keyboardOnly): return .passkeyEntry(.responderDisplays)
        case (.keyboardDisplay, .displayYesNo), (.keyboardDisplay, .keyboardDisplay):
            return sc ? .numericComparison : .passkeyEntry(.initiatorDisplays)
        case (.keyboardDisplay, _): return .passkeyEntry(.initiatorDisplays)
        default: return .justWorks
        }
    }
}
