import BluetoothCore

/// One device's scheduling state, for `--explain` and the adapters topic.
public struct DeviceScheduleReport: Hashable, Sendable {
    /// Where the link stands.
    public enum Link: Hashable, Sendable {
        case idle
        case connecting
        case connected(handle: UInt16)
        case disconnecting(handle: UInt16)
    }
    /// When an idle device may next try.
    public enum Retry: Hashable, Sendable {
        case now
        case at(MonotonicTime)
        case whenASlotFrees
    }

    public var policy: ConnectPolicy
    public var link: Link
    /// Meaningful while ``link`` is idle.
    public var retry: Retry
    /// Consecutive failures in the current streak (see ``SchedulerConfiguration/stableLink``).
    public var failures: Int
    /// Why the last attempt or link ended.
    public var lastFailure: SchedulerFailure?
}
