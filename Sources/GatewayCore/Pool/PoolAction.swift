/// What the owner of an ``AdapterPool`` must do.
public enum PoolAction: Hashable, Sendable {
    /// Carry out a scheduler's action on this adapter.
    case adapter(AdapterID, SchedulerAction)
    /// The device is now served by this adapter (nil: by none, until an adapter that can
    /// serve it hears it), for `--explain` and the adapters topic.
    case assigned(DeviceID, AdapterID?)
}
