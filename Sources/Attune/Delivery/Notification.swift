/// One value a peripheral notified or indicated, as ``Peripheral/notifications(for:)``
/// delivers it.
public struct Notification: Hashable, Sendable, LossReporting {
    /// The characteristic's value as the peer sent it.
    public var value: [UInt8]
    /// True for a Handle Value Indication (already confirmed), false for a notification.
    public var isIndication: Bool
    /// When the batch that carried it was taken from the link.
    public var receivedAt: ContinuousClock.Instant
    /// Values of this characteristic dropped immediately before this one; 0 when none
    /// were. Two places drop: this stream, when the consumer did not keep up for longer
    /// than the stall limit, and the userland host's per-link inbox, which never pauses
    /// the adapter's one stream for one link (``PeripheralStatistics/pdusDropped``). A
    /// transport drop is counted on the characteristic's next notification taken from the
    /// link after the drop (a notification whose handle could not be read counts on the
    /// link's next notification of any characteristic), so the sum of the values and
    /// their `lostBefore` is exactly what the peer sent.
    public var lostBefore: Int

    public init(value: [UInt8], isIndication: Bool = false, receivedAt: ContinuousClock.Instant = .now,
                lostBefore: Int = 0) {
        self.value = value
        self.isIndication = isIndication
        self.receivedAt = receivedAt
        self.lostBefore = lostBefore
    }
}
