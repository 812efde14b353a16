import SMP

/// How a manager pairs: what our side offers and requires, and who answers the user's
/// part (a ``PairingAgent``, a fixed passkey, or nobody).
///
/// ```swift
/// let agent = PairingAgent()
/// let central = CentralManager(transport: .h4(endpoint),
///                              pairing: PairingConfiguration(ioCapabilities: .keyboardDisplay, agent: agent))
/// Task { for await request in agent { request.accept() } }
/// ```
///
/// The userland host (H4, user channel) pairs with these choices itself. The kernel
/// transport pairs through the kernel's own Security Manager: without bluetoothd, its
/// agent sets the kernel's IO capability from ``ioCapabilities`` and answers the kernel's
/// requests with ``passkey`` or ``agent``; beside bluetoothd, bluetoothd's agent answers.
public struct PairingConfiguration: Sendable {
    /// What our user can see and type; ``PairingIOCapabilities/noInputNoOutput`` by default.
    public var ioCapabilities: PairingIOCapabilities
    /// Require MITM protection: a pairing that would be Just Works fails with
    /// Authentication Requirements.
    public var requiresMITM: Bool
    /// Ask for a bond, so keys are distributed for later links.
    public var bonding: Bool
    /// Refuse LE legacy pairing.
    public var secureConnectionsOnly: Bool
    /// Pair by itself when an attribute answers Insufficient Encryption or Authentication
    /// (Core Bluetooth's behaviour). Off: such a request fails with its ATT error, and
    /// only ``Peripheral/pair()`` pairs.
    public var automatic: Bool
    /// Ask the agent to accept a Secure Connections Just Works pairing
    /// (``PairingRequest/Kind/acceptJustWorks``) before it completes; off by default, as
    /// Just Works needs no answer. Refused (or with no agent), it fails with Numeric
    /// Comparison Failed.
    public var confirmsJustWorks: Bool
    /// The passkey for non-interactive use (0–999999): shown when we display, typed when
    /// we input; requests for it never reach the agent as questions.
    public var passkey: UInt32?
    /// Receives the requests for the user. Without one (and without ``passkey``), a
    /// request that needs an answer is refused at once (Passkey Entry Failed, Numeric
    /// Comparison Failed): pairing never waits for a user nobody asked.
    public var agent: PairingAgent?

    public init(ioCapabilities: PairingIOCapabilities = .noInputNoOutput, requiresMITM: Bool = false, bonding: Bool = true,
                secureConnectionsOnly: Bool = false, automatic: Bool = true, confirmsJustWorks: Bool = false,
                passkey: UInt32? = nil, agent: PairingAgent? = nil) {
        self.confirmsJustWorks = confirmsJustWorks
        self.ioCapabilities = ioCapabilities
        self.requiresMITM = requiresMITM
        self.bonding = bonding
        self.secureConnectionsOnly = secureConnectionsOnly
        self.automatic = automatic
        self.passkey = passkey
        self.agent = agent
    }

    /// The Security Manager's configuration for these choices.
    package var securityManager: SMPConfiguration {
        var smp = SMPConfiguration(ioCapability: ioCapabilities.smp, bonding: bonding, requiresMITM: requiresMITM,
                                   secureConnections: true, secureConnectionsOnly: secureConnectionsOnly,
                                   fixedPasskey: passkey.flatMap { $0 <= 999_999 ? $0 : nil })
        smp.confirmsJustWorks = confirmsJustWorks
        return smp
    }
}
