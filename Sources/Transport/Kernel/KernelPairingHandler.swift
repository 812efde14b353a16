/// Answers the kernel's pairing questions for a ``KernelPairingAgent``: the hook the
/// public pairing agent plugs into. Answers may take their time (a person typing a
/// passkey); the agent refuses for them when ``KernelPairingAgent/answerTimeout`` passes
/// first, so the kernel's 30 s SMP timer never runs out on a silent handler.
public protocol KernelPairingHandler: Sendable {
    /// The IO capability the agent sets on the adapters (mgmt Set IO Capability) before
    /// pairing, or nil to leave the kernel's (NoInputNoOutput unless someone set it).
    var ioCapability: KernelIOCapability? { get }

    /// The answer to `request`. Passkey Notify requests come here too, for display; their
    /// answer is ignored.
    func answer(_ request: KernelPairingRequest) async -> KernelPairingAnswer
}

/// A handler's reply to a ``KernelPairingRequest``.
public enum KernelPairingAnswer: Hashable, Sendable {
    /// Yes to a confirmation (User Confirmation Reply).
    case accept
    /// No (the matching Negative Reply).
    case reject
    /// The passkey to enter (User Passkey Reply), 0–999999.
    case passkey(UInt32)
}

/// The IO capabilities of mgmt Set IO Capability (the SMP values).
public enum KernelIOCapability: UInt8, Hashable, Sendable, CustomStringConvertible {
    case displayOnly = 0
    case displayYesNo = 1
    case keyboardOnly = 2
    case noInputNoOutput = 3
    case keyboardDisplay = 4

    public var description: String {
        switch self {
        case .displayOnly: "DisplayOnly"
        case .displayYesNo: "DisplayYesNo"
        case .keyboardOnly: "KeyboardOnly"
        case .noInputNoOutput: "NoInputNoOutput"
        case .keyboardDisplay: "KeyboardDisplay"
        }
    }
}

/// Accepts Just Works and refuses everything else: with nobody to compare digits or type a
/// passkey, that is all a headless host can honestly agree to. Leaves the IO capability
/// alone (the kernel's default, NoInputNoOutput, makes every pairing Just Works).
public struct JustWorksPairingHandler: KernelPairingHandler {
    public init() {}
    public var ioCapability: KernelIOCapability? { nil }
    public func answer(_ request: KernelPairingRequest) async -> KernelPairingAnswer {
        request.kind == .justWorks ? .accept : .reject
    }
}

/// Enters one fixed passkey whenever the kernel asks for one, and accepts Just Works; for
/// a device pair whose peer displays a known passkey (a lab, a factory fixture). Numeric
/// comparison is refused: a fixed answer cannot compare.
public struct FixedPasskeyPairingHandler: KernelPairingHandler {
    public let passkey: UInt32
    public let ioCapability: KernelIOCapability?

    /// - Parameters:
    ///   - passkey: 0–999999 (larger values are taken modulo 1 000 000).
    ///   - ioCapability: KeyboardOnly by default, so the kernel asks for a passkey.
    public init(passkey: UInt32, ioCapability: KernelIOCapability = .keyboardOnly) {
        self.passkey = passkey % 1_000_000
        self.ioCapability = ioCapability
    }

    public func answer(_ request: KernelPairingRequest) async -> KernelPairingAnswer {
        switch request.kind {
        case .justWorks: .accept
        case .passkeyEntry: .passkey(passkey)
        case .numericComparison, .passkeyDisplay: .reject
        }
    }
}

/// A handler made of a closure, for callers that answer from elsewhere (a terminal, the
/// public pairing agent).
public struct ClosurePairingHandler: KernelPairingHandler {
    public let ioCapability: KernelIOCapability?
    private let body: @Sendable (KernelPairingRequest) async -> KernelPairingAnswer

    public init(ioCapability: KernelIOCapability?, _ body: @escaping @Sendable (KernelPairingRequest) async -> KernelPairingAnswer) {
        self.ioCapability = ioCapability
        self.body = body
    }

    public func answer(_ request: KernelPairingRequest) async -> KernelPairingAnswer { await body(request) }
}
