import HCI
import Synchronization

/// One end of an in-memory LE link. PDUs go straight into the other end's bounded
/// inbox; while it is full, ``canSend`` is false, which is what flow control sees.
final class MemoryLink: ATTLink {
    static let capacity = 256

    let peerAddress: BluetoothAddress
    let peerAddressType: BluetoothAddressType
    /// This end's inbox and state, and the peer's. Both are held strongly and hold no
    /// link, so the pair makes no cycle and no link is referenced weakly: a weak
    /// reference gives its object a side table for good, and then every retain and
    /// release of the link (several per notification, by the manager that sends on it)
    /// takes the runtime's slow path.
    private let own: Side
    private let peer: Side

    /// Reports this end's traffic to a ``MemoryRadio`` tap. Only the central's end of a
    /// pair reports its end of life, so each link is reported closed once.
    struct Tap {
        var connection: UInt16
        var isCentral: Bool
        var report: @Sendable (MemoryTapEvent) -> Void
    }

    /// What one end of the pair is, apart from its owner's object: its inbox, its tap and
    /// whether it ended. The other end reaches it to send and to close it.
    final class Side: Sendable {
        fileprivate struct State {
            var tap: Tap?
            var closed = false
        }

        fileprivate let inbox = LinkInbox<LinkEvent>(capacity: MemoryLink.capacity)
        fileprivate let state = Mutex(State())

        /// Ends this side, with `reason` (also used to simulate link loss).
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
    }

    private init(peerAddress: BluetoothAddress, peerAddressType: BluetoothAddressType, own: Side, peer: Side) {
        self.peerAddress = peerAddress
        self.peerAddressType = peerAddressType
        self.own = own
        self.peer = peer
    }

    /// A connected pair: the central's end and the peripheral's end.
    static func pair(central: (BluetoothAddress, BluetoothAddressType),
                     peripheral: (BluetoothAddress, BluetoothAddressType)) -> (central: MemoryLink, peripheral: MemoryLink) {
        let centralSide = Side()
        let peripheralSide = Side()
        let c = MemoryLink(peerAddress: peripheral.0, peerAddressType: peripheral.1, own: centralSide, peer: peripheralSide)
        let p = MemoryLink(peerAddress: central.0, peerAddressType: central.1, own: peripheralSide, peer: centralSide)
        return (c, p)
    }

    /// Nobody takes from this end any more: it ends without a word (as the weakly held
    /// peer of before simply vanished), so what the peer sends from now on is discarded
    /// and its ``canSend`` is false.
    deinit {
        let open = own.state.withLock { s -> Bool in
            defer { s.closed = true }
            return !s.closed
        }
        if open { own.inbox.finish(.closed(.hci(HCIStatus.connectionTerminatedByLocalHost))) }
    }

    /// Starts reporting this end's sent PDUs (and, for the central's end, its closing).
    func setTap(_ tap: Tap) {
        own.state.withLock { $0.tap = tap }
    }

    nonisolated(nonsending) func receive() async -> [LinkEvent] { await own.inbox.take() }
    func recycle(_ batch: inout [LinkEvent]) { own.inbox.recycle(&batch) }

    func send(_ pdu: [UInt8]) {
        own.state.withLock { s in
            guard !s.closed else { return }
            // Reported and queued under the lock, so the tap and the peer see this end's
            // PDUs in sending order.
            if let tap = s.tap { tap.report(.pdu(connection: tap.connection, fromCentral: tap.isCentral, pdu)) }
            peer.inbox.push(.received(pdu))
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
        !own.isClosed && peer.inbox.hasRoom
    }

    func sendReady() async {
        guard !own.isClosed else { return }
        await peer.inbox.waitForRoom()
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
        peer.end(reason)
    }

    /// Ends this side only, with `reason` (also used to simulate link loss).
    func end(_ reason: HCIStatus) { own.end(reason) }

    var isClosed: Bool { own.isClosed }
    var hasEnded: Bool { isClosed }
    /// The other end of the pair (a link whose owner let it go has ended already).
    var peerEnd: Side { peer }
}
