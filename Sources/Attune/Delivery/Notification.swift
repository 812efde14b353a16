/// One value a peripheral notified or indicated, as ``Peripheral/notifications(for:)``
/// delivers it.
public struct Notification: Hashable, Sendable, LossReporting {
    /// The characteristic's value as the peer sent it.
    public var value: [UInt8]
    /// True for a Handle Value Indication (already confirmed), false for a notification.
    public var isIndication: Bool
    /// When the batch that carried it was taken from the link.
    public var receivedAt: ContinuousClock.Instant
    /// Values of this stream dropped immediately before this one because the consumer
    /// did not keep up for longer than the stall limit; 0 when none were.
    public var lostBefore: Int

    public init(value: [UInt8], isIndication: Bool = false, receivedAt: ContinuousClock.Instant = .now,
                lostBefore: Int = 0) {
        self.value = value
        self.isIndication = isIndication
        self.receivedAt = receivedAt
        self.lostBefore = lostBefore
    }
}
