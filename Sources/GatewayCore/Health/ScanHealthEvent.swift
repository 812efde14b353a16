import BluetoothCore

/// One step of scan recovery, published on the adapters topic.
public struct ScanHealthEvent: Hashable, Sendable {
    public enum Step: String, Hashable, Sendable {
        /// Scanning was stopped and started again.
        case restartedScan = "restarted_scan"
        /// The adapter was reset.
        case resetAdapter = "reset_adapter"
        /// A reset did not bring advertisements back; nothing more is tried until one comes.
        case unrecovered
        /// Advertisements came back after a step.
        case recovered
    }
    public var adapter: AdapterID
    public var step: Step
    /// How long the adapter had heard nothing.
    public var silentFor: Duration
}

/// What the owner of a ``ScanHealth`` must do.
public enum ScanHealthAction: Hashable, Sendable {
    /// Stop scanning and start again.
    case restartScan
    /// Reset the adapter (HCI Reset, or power-cycle it), then scan again.
    case resetAdapter
    /// Publish this on the adapters topic.
    case report(ScanHealthEvent)
}
