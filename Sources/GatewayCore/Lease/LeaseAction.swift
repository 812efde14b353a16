/// What the owner of a ``DeviceLease`` must do.
public enum LeaseAction: Hashable, Sendable {
    /// Publish this record retained on `attune/dev/<name>/owner`, with an MQTT 5 message
    /// expiry of `until − now`, so a dead gateway's claim vanishes from the broker too.
    case publish(LeaseRecord)
    /// Clear the retained record (an empty retained payload).
    case clear
    /// This gateway now owns the device: connect it.
    case acquired
    /// This gateway no longer owns the device (another won it, or it was released):
    /// disconnect it. `to` is the new owner when known.
    case lost(to: String?)
}
