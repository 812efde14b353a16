/// What the owner of a ``SubscriptionWatchdog`` must do on a device's link.
public enum WatchdogAction: Hashable, Sendable {
    /// Write the CCCD of each of these (a reconnect, or the desired set grew).
    case writeCCCDs(DeviceID, [DesiredSubscription])
    /// Nothing came for too long: read this CCCD and write it again (the peer may have
    /// forgotten it, or our write was lost).
    case resubscribe(DeviceID, DesiredSubscription)
}
