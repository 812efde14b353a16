import ATT
import HCI
import Synchronization

/// The ATT fixed channel (CID 0x0004) of one connection of a ``UserlandHost``: whole PDUs
/// in both directions, for a GATT client or server engine to own.
///
/// Exists from the moment the connection comes up (PDUs that arrive before anyone asks
/// for the channel wait in ``inbox``), when the host routes ATT to channels.
///
/// The inbox is bounded, and the host never stops reading the H4 stream for it: the
/// stream carries every link of the adapter and the HCI events (Number Of Completed
/// Packets among them) that all of them wait on, so one link whose owner falls behind
/// must not stall the others. A full inbox drops the PDUs ATT does not acknowledge
/// (notifications and commands) and counts them (``takeDroppedCount()``); the rest are
/// kept one by one by ATT's sequential protocol, and get ``inboxLimit`` in all.
public final class UserlandATTChannel: Sendable {
    /// What the channel reports.
    public enum Event: Sendable, Hashable {
        /// One ATT PDU from the peer.
        case received([UInt8])
        /// The link went down with this HCI reason.
        case disconnected(HCIStatus)
        /// The host stopped (stream closed, controller failed): the link's fate is unknown.
        case ended(HostError)
        /// The peer sent an indication before its previous one was confirmed (an
        /// indication flood); the host is disconnecting the link.
        case indicationBeforeConfirmation
    }

    /// How many received PDUs may wait before notifications and commands are dropped.
    public static let inboxCapacity = 256
    /// How many PDUs may wait at all. Past ``inboxCapacity`` only requests, responses,
    /// indications and confirmations are kept, and ATT allows the peer one of each at a
    /// time; a peer that sends more has broken the protocol, and its excess is dropped
    /// and counted like a notification.
    public static let inboxLimit = 2 * inboxCapacity

    public let connection: ConnectionInfo
    /// Received PDUs, then one closing event, taken in batches by exactly one owner.
    public let inbox: LinkInbox<Event>
    /// The notifications and indications among the PDUs the inbox dropped, by handle;
    /// touched only when one is dropped.
    private let droppedNotifications = Mutex(DroppedNotifications())
    private let host: UserlandHost

    init(connection: ConnectionInfo, host: UserlandHost) {
        self.connection = connection
        inbox = LinkInbox(capacity: Self.inboxCapacity)
        self.host = host
    }

    /// The next batch of events (received PDUs, the closing event last); empty once the
    /// closing event was taken.
    nonisolated(nonsending) public func receive() async -> [Event] { await inbox.take() }

    /// Queues a PDU from the peer, or drops and counts it when the inbox is full.
    func deliver(_ pdu: [UInt8]) {
        // Notifications (0x1B, 0x23) and commands (bit 6) are unacknowledged: ATT lets a
        // peer send them without limit, and lets us lose them.
        let unacknowledged = pdu.first.map { $0 == 0x1B || $0 == 0x23 || $0 & 0x40 != 0 } ?? true
        guard !inbox.pushOrCount(.received(pdu), limit: unacknowledged ? Self.inboxCapacity : Self.inboxLimit) else {
            return
        }
        droppedNotifications.withLock { $0.count(pdu) }
    }

    /// How many PDUs from the peer were dropped since the last call, because the inbox
    /// was full.
    public func takeDroppedCount() -> Int { inbox.takeLostCount() }

    /// The notifications and indications among the dropped PDUs, by the handle they
    /// carried, since the last call.
    package func takeDroppedNotifications() -> DroppedNotifications {
        droppedNotifications.withLock { dropped in
            defer { dropped = DroppedNotifications() }
            return dropped
        }
    }

    /// The same events one at a time, for tools and tests that drive an engine by hand.
    public var events: Events { Events(channel: self) }

    /// The channel's events as an asynchronous sequence; it ends after the closing event.
    public struct Events: AsyncSequence, Sendable {
        public typealias Element = Event
        let channel: UserlandATTChannel

        public struct AsyncIterator: AsyncIteratorProtocol {
            let channel: UserlandATTChannel
            var pending: [Event] = []
            var index = 0

            public mutating func next() async -> Event? {
                if index == pending.count {
                    pending = await channel.receive()
                    index = 0
                    if pending.isEmpty { return nil }
                }
                defer { index += 1 }
                return pending[index]
            }
        }

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(channel: channel) }
    }

    /// Queues one PDU; never blocks. Fragmentation and ACL flow control happen in the host;
    /// after the link closes, PDUs are dropped.
    public func send(_ pdu: [UInt8]) {
        host.enqueueL2CAP(handle: connection.handle, channel: .attribute, payload: pdu[...])
    }

    /// Queues one PDU that sits in a buffer of the caller's (a server's output): the host
    /// frames it into ACL packets from there, without an array of its own.
    public func send(_ pdu: ArraySlice<UInt8>) {
        host.enqueueL2CAP(handle: connection.handle, channel: .attribute, payload: pdu)
    }

    /// True when nothing of this connection waits for controller buffers, so a new PDU
    /// leaves at once; Write Without Response and notifications should wait for it.
    public var canSend: Bool { host.canSend(on: connection.handle) }

    /// Returns once ``canSend`` is true, or the link is gone.
    public func sendReady() async { await host.sendReady(on: connection.handle) }

    /// True once the connection is gone (its Disconnection Complete came, or the host stopped).
    public var hasEnded: Bool { !host.isConnected(connection.handle) }

    /// Pairs with the peer, or joins a pairing in progress, and returns once the link is
    /// encrypted (see ``UserlandHost/raiseSecurity(on:)``).
    public func raiseSecurity() async throws(AttuneError) {
        try await host.raiseSecurity(on: connection.handle)
    }

    /// How the link is secured now (see ``UserlandHost/linkSecurity(on:)``).
    public var security: LinkSecurity { host.linkSecurity(on: connection.handle) }

    /// Disconnects the link (reason 0x13, remote user terminated connection).
    public func close() {
        host.requestDisconnect(handle: connection.handle)
    }
}
