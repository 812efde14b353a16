/// What the application asks the host to do. Each request finishes with exactly one
/// `HostAction.complete` carrying its ``HostRequestID``.
public enum HostRequest: Hashable, Sendable {
    case startScanning(ScanConfiguration)
    case stopScanning
    case startAdvertising(AdvertisingConfiguration)
    case stopAdvertising
    /// Initiates a connection; fails with ``HostError/connectionTimedOut`` after `timeout`.
    case connect(peer: BluetoothAddress, peerAddressType: UInt8, parameters: ConnectionParameters, timeout: Duration)
    /// Cancels the pending `connect`, which then fails with ``HostError/connectionCancelled``.
    case cancelConnect
    /// Completes with the reason from Disconnection Complete.
    case disconnect(handle: UInt16, reason: UInt8)
    /// Sends an L2CAP basic frame payload on a channel of a connection. Completes once
    /// queued; fragmentation and flow control happen inside the host.
    case sendL2CAP(handle: UInt16, channel: L2CAPChannelID, payload: [UInt8])
    /// Sends any HCI command and completes with its return parameters.
    case rawCommand(opcode: HCIOpcode, parameters: [UInt8])
}

/// How to scan.
public struct ScanConfiguration: Hashable, Sendable {
    /// Active scanning asks for scan responses.
    public var active: Bool
    /// In units of 0.625 ms.
    public var interval: UInt16
    public var window: UInt16
    public var filterDuplicates: Bool

    public init(active: Bool = true, interval: UInt16 = 0x0010, window: UInt16 = 0x0010, filterDuplicates: Bool = false) {
        self.active = active
        self.interval = interval
        self.window = window
        self.filterDuplicates = filterDuplicates
    }
}

/// How to advertise. Connectable, scannable undirected advertising with legacy PDUs,
/// so every scanner sees it.
public struct AdvertisingConfiguration: Hashable, Sendable {
    /// At most 31 bytes (legacy PDUs).
    public var data: [UInt8]
    /// At most 31 bytes.
    public var scanResponse: [UInt8]
    /// In units of 0.625 ms.
    public var interval: UInt16
    public var connectable: Bool

    public init(data: [UInt8], scanResponse: [UInt8] = [], interval: UInt16 = 0x0020, connectable: Bool = true) {
        self.data = data
        self.scanResponse = scanResponse
        self.interval = interval
        self.connectable = connectable
    }
}
