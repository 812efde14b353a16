/// What passed over a ``Peripheral``'s links, for gateways to publish and tests to check.
public struct PeripheralStatistics: Hashable, Sendable {
    /// ATT PDUs taken from the link.
    public var pdusReceived = 0
    /// Batches those PDUs came in (one wake-up each).
    public var batchesReceived = 0
    /// Values handed to ``Peripheral/notifications(for:)`` consumers, counted once per
    /// consumer; all but ``notificationsLost`` of them reach their consumer.
    public var notificationsReceived = 0
    /// Values dropped because a consumer stayed full past the stall limit; each is also
    /// reported to its consumer through ``Notification/lostBefore``.
    public var notificationsLost = 0
    /// ATT PDUs the transport dropped because this link was not taken from in time: the
    /// userland host reads all of an adapter's links from one stream and does not stop
    /// for one of them, so past its inbox it drops notifications (and commands) and
    /// counts them here (the notifications among them also in the next
    /// ``Notification/lostBefore``). Zero on the other transports, which hold the data instead.
    public var pdusDropped = 0
    /// Times the link stopped being read because a consumer was full.
    public var backPressurePauses = 0

    public init() {}
}

import Synchronization

/// The live counters behind ``Peripheral/statistics``, shared with the buffers that
/// count their losses.
final class PeripheralCounters: Sendable {
    private let state = Mutex(PeripheralStatistics())
    var snapshot: PeripheralStatistics { state.withLock { $0 } }
    func update(_ body: (inout PeripheralStatistics) -> Void) { state.withLock { body(&$0) } }
}
