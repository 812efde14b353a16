/// What the owner of a ``ConnectionScheduler`` must do on its adapter.
public enum SchedulerAction: Hashable, Sendable {
    /// Send LE Create Connection to this device. The scheduler sends no other until the
    /// attempt ends with ``ConnectionScheduler/connected(handle:device:at:)`` or
    /// ``ConnectionScheduler/connectFailed(_:at:)``.
    case connect(DeviceID)
    /// Send LE Create Connection Cancel: the attempt for this device timed out or is no
    /// longer wanted. Its Connection Complete (usually 0x02) still has to come in.
    case cancelConnect(DeviceID)
    /// Send HCI Disconnect (0x13, remote user terminated) for this link.
    case disconnect(handle: UInt16, device: DeviceID?)
    /// The controller did not answer the cancel: reset the adapter, then report
    /// ``ConnectionScheduler/adapterReset(at:)``.
    case resetAdapter
}

/// Why a device's last attempt or link ended, for `--explain`.
public enum SchedulerFailure: Hashable, Sendable {
    /// Connection Complete or Command Status with this status.
    case connectFailed(HCIReason)
    /// The pending connect outlived its timeout and was cancelled.
    case connectTimeout
    /// The link went down with this reason.
    case disconnected(HCIReason)
}
