import HCI
import Synchronization

/// One end of an in-memory LE link. PDUs go straight into the other end's bounded
/// inbox; while it is full, ``canSend`` is false, which is what flow control sees.
final class MemoryLink: ATTLink {
    static let capacity = 256

    let peerAddress: BluetoothAddress
    let peerAddressType: BluetoothAddressType
    private let inbox = LinkInbox<LinkEvent>(capacity: MemoryLink.capacity)

    /// Reports this end's traffic to a ``MemoryRadio`` tap. Only the central's end of a
    /// pair reports its end of life, so each link is reported closed once.
    struct Tap {
        var connection: UInt16
        var isCentral: Bool
        var report: @Sendable (MemoryTapEvent) -> Void
    }

    private struct State {
        weak var peer: MemoryLink?
        /// The peer's inbox, held strongly: what every send and flow-control check
        /// reaches, without loading the weak reference (and retaining and releasing the
        /// peer) each time. The inbox holds no link, so this makes no cycle; a peer that
        /// goes away finishes its inbox (``deinit``), which then refuses what is sent.
        var peerInbox: LinkInbox<LinkEvent>?
        var tap: Tap?
        var closed = false
    }

    private let state = Mutex(State())

    init(peerAddress: BluetoothAddress, peerAddressType: BluetoothAddressType) {
        self.peerAddress = peerAddress
        self.peerAddressType = peerAddressType
    }

    /// A connected pair: the central's end and the peripheral's end.
    static func pair(central: (BluetoothAddress, BluetoothAddressType),
                     peripheral: (BluetoothAddress, BluetoothAddressType)) -> (central: MemoryLink, peripheral: MemoryLink) {
        let c = MemoryLink(peerAddress: peripheral.0, peerAddressType: peripheral.1)
        let p = MemoryLink(peerAddress: central.0, peerAddressType: central.1)
        c.state.withLock {
            $0.peer = p
            $0.peerInbox = p.inbox
        }
        p.state.withLock {
            $0.peer = c
            $0.peerInbox = c.inbox
        }
        return (c, p)
    }

    /// Nobody takes from this end any more: what the peer sends from now on is
    /// discarded and its ``canSend`` is false, as when it could no longer reach this end.
    deinit {
        inbox.finish(.closed(.hci(HCIStatus.connectionTerminatedByLocalHost)))
    }

    /// Starts reporting this end's sent PDUs (and, for the central's end, its closing).
    func setTap(_ tap: Tap) {
        state.withLock { $0.tap = tap }
    }

    nonisolated(nonsending) func receive() async -> [LinkEvent] { await inbox.take() }
    func recycle(_ batch: inout [LinkEvent]) { inbox.recycle(&batch) }

    func send(_ pdu: [UInt8]) {
        state.withLock { s in
            guard !s.closed, let peerInbox = s.peerInbox else { return }
            // Reported and queued under the lock, so the tap and the peer see this end's
            // PDUs in sending order.
            if let tap = s.tap { tap.report(.pdu(connection: tap.connection, fromCentral: tap.isCentral, pdu)) }
            peerInbox.push(.received(pdu))
        }
    }

    /// Always copied into an array of the PDU's own: `Array` of a slice that spans its
    /// whole buffer (a server's output holding one PDU) would share that buffer, so the
    /// server's next output would allocate a new one, and the peer could not take the
    /// PDU over as its value in place.
    func send(_ pdu: ArraySlice<UInt8>) {
        // Reserved and appended rather than `init(unsafeUninitializedCapacity:)`, whose
        // allocation is the standard library's unspecialized code: a run-time metadata
        // look-up per PDU.
        var own: [UInt8] = []
        own.reserveCapacity(pdu.count)
        own.append(contentsOf: pdu)
        send(own)
    }

    var canSend: Bool {
        state.withLock { s in !s.closed && (s.peerInbox?.hasRoom ?? false) }
    }

    func sendReady() async {
        guard let peerInbox = state.withLock({ $0.closed ? nil : $0.peerInbox }) else { return }
        await peerInbox.waitForRoom()
    }

    /// The memory radio has no Security Manager: there is nothing to pair with.
    func raiseSecurity() async throws(AttuneError) {
        throw .securityUnavailable("the memory radio has no Security Manager, so links on it cannot be encrypted")
    }

    func close() {
        // Like HCI_Disconnect with Remote User Terminated: we see our own termination,
        // the peer sees the remote one.
        close(peerSees: HCIStatus.remoteUserTerminatedConnection)
    }

    /// Ends both sides: this one with Connection Terminated By Local Host (0x16), the
    /// peer with `reason`.
    func close(peerSees reason: HCIStatus) {
        end(HCIStatus.connectionTerminatedByLocalHost)
        state.withLock { $0.peer }?.end(reason)
    }

    /// Ends this side only, with `reason` (also used to simulate link loss).
    func end(_ reason: HCIStatus) {
        let tap = state.withLock { s -> Tap?? in
            guard !s.closed else { return nil }
            s.closed = true
            return .some(s.tap)
        }
        guard let tap else { return }
        if let tap, tap.isCentral { tap.report(.disconnected(connection: tap.connection, reason: reason)) }
        // Finishing also releases a peer that waits for room in this inbox.
        inbox.finish(.closed(.hci(reason)))
    }

    var isClosed: Bool { state.withLock { $0.closed } }
    var hasEnded: Bool { isClosed }
    /// The other end of the pair, while it lives.
    var peerEnd: MemoryLink? { state.withLock { $0.peer } }
}
