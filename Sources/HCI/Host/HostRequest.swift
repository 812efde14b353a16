/// What the application asks the host to do. Each request finishes with exactly one
/// ``HostOutput/Completion`` carrying its ``HostRequestID``.
public enum HostRequest: Hashable, Sendable {
    case startScanning(ScanConfiguration)
    case stopScanning
    case startAdvertising(AdvertisingConfiguration)
    case stopAdvertising
    /// Enables or disables the advertising `startAdvertising` configured, leaving its
    /// parameters and data as they are: a peripheral resumes connectable advertising
    /// after a connection ended it (Vol 4 Part E §7.8.9), or pauses it when full.
    case setAdvertisingEnabled(Bool)
    /// Initiates a connection; fails with ``HostError/connectionTimedOut`` after `timeout`.
    case connect(peer: BluetoothAddress, peerAddressType: UInt8, parameters: ConnectionParameters, timeout: Duration)
    /// Cancels the pending `connect`, which then fails with ``HostError/connectionCancelled``.
    case cancelConnect
    /// Completes with the reason from Disconnection Complete.
    case disconnect(handle: UInt16, reason: UInt8)
    /// Sends an L2CAP basic frame payload on a channel of a connection (SMP PDUs go on
    /// ``L2CAPChannelID/securityManager``). Completes once
    /// queued; fragmentation and flow control happen inside the host.
    case sendL2CAP(handle: UInt16, channel: L2CAPChannelID, payload: [UInt8])
    /// Central: starts (or refreshes) encryption of a link with this key (HCI LE Enable
    /// Encryption). Completes on the controller's Command Status; the outcome arrives as
    /// ``HostEvent/encryptionChanged(_:)`` or ``HostEvent/encryptionKeyRefreshed(_:)``.
    case startEncryption(handle: UInt16, random: UInt64, encryptedDiversifier: UInt16, longTermKey: LinkKeyMaterial)
    /// Peripheral: answers ``HostEvent/longTermKeyRequested(_:)`` with the key.
    case longTermKeyReply(handle: UInt16, longTermKey: LinkKeyMaterial)
    /// Peripheral: answers ``HostEvent/longTermKeyRequested(_:)`` with no key.
    case longTermKeyNegativeReply(handle: UInt16)
    /// Sends any HCI command and completes with its return parameters.
    case rawCommand(opcode: HCIOpcode, parameters: [UInt8])
    /// Resets the controller (HCI_Reset, Vol 4 Part E §7.3.2) and runs the initialisation
    /// sequence again. The controller forgets its links without a Disconnection Complete,
    /// so every connection is reported ``HostEvent/disconnected(handle:reason:)`` with
    /// Connection Terminated By Local Host (0x16); every other request in progress,
    /// a pending connect included, fails with ``HostError/controllerReset``. Scanning and
    /// advertising are off afterwards. Completes with `.done` once the host is ready again,
    /// after a new ``HostEvent/ready(_:)``; a controller that does not answer stops the host
    /// with ``HostError/commandTimeout(_:)``.
    case reset
}
