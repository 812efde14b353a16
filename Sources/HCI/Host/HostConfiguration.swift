/// Settings of the HCI host.
public struct HostConfiguration: Hashable, Sendable {
    /// Which advertising, scanning and initiating commands to use.
    public enum CommandSet: Hashable, Sendable {
        /// Extended when the controller supports LE Extended Advertising, else legacy.
        case automatic
        case legacy
    }

    /// Set with LE Set Random Address during initialisation and used as our own
    /// address (own address type random) everywhere. Nil uses the public address.
    public var randomAddress: BluetoothAddress?
    /// Use the controller's public address instead of ``randomAddress`` when it has one
    /// (Read BD_ADDR is not all zeros): a public address is the identity a controller was
    /// built with, the same in every process. ``randomAddress`` is then only the fallback
    /// for controllers without one, such as emulated ones.
    public var prefersPublicAddress: Bool
    /// How long a command may go unanswered before the host gives up on the controller.
    public var commandTimeout: Duration
    public var commandSet: CommandSet
    /// Bounds that a peer's Connection Parameter Update Request must meet, on top of
    /// the spec's own limits, for us (as central) to accept it.
    public var acceptableIntervalRange: ClosedRange<UInt16>
    public var maximumAcceptableLatency: UInt16
    /// The longest L2CAP PDU reassembled from the controller; longer ones are dropped.
    public var maximumL2CAPFrameLength: Int
    /// How many ACL packets one connection may have waiting for controller buffers. A
    /// controller that stops returning buffers cannot make memory grow past this: further
    /// sends fail with ``HostError/busy(_:)``.
    public var maximumQueuedACLPackets: Int

    /// A Security Manager above the host pairs: SMP PDUs are delivered as
    /// ``HostEvent/securityManagerData(handle:pdu:)`` and LTK requests as
    /// ``HostEvent/longTermKeyRequested(_:)``, for it to answer. Off, the host answers every
    /// pairing attempt with Pairing Failed (Pairing Not Supported) and the controller
    /// refuses LTK requests itself.
    public var pairingEnabled: Bool

    public init(randomAddress: BluetoothAddress? = nil, commandTimeout: Duration = .seconds(5),
                commandSet: CommandSet = .automatic, acceptableIntervalRange: ClosedRange<UInt16> = 0x0006...0x0C80,
                maximumAcceptableLatency: UInt16 = 0x01F3, maximumL2CAPFrameLength: Int = 4096,
                maximumQueuedACLPackets: Int = 4096, pairingEnabled: Bool = false, prefersPublicAddress: Bool = false) {
        self.pairingEnabled = pairingEnabled
        self.prefersPublicAddress = prefersPublicAddress
        self.randomAddress = randomAddress
        self.commandTimeout = commandTimeout
        self.commandSet = commandSet
        self.acceptableIntervalRange = acceptableIntervalRange
        self.maximumAcceptableLatency = maximumAcceptableLatency
        self.maximumL2CAPFrameLength = maximumL2CAPFrameLength
        self.maximumQueuedACLPackets = maximumQueuedACLPackets
    }

}
