import BluetoothCore

/// A device as the pool keeps it: its policy, the adapters it may use in config order,
/// and where it is served.
struct PooledDevice: Hashable, Sendable {
    var policy: ConnectPolicy
    var affinity: [AdapterID]
    var assigned: AdapterID?
    /// An on-demand request made while no adapter served the device.
    var requested = false
}

/// An adapter in the pool.
struct PooledAdapter: Sendable {
    var scheduler: ConnectionScheduler
    /// Powered and not resetting.
    var up = true
    /// When this adapter last heard each configured device (only configured devices are
    /// kept, so the table is bounded by the config).
    var lastHeard: [DeviceID: MonotonicTime] = [:]
}
