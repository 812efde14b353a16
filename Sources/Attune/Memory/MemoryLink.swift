import Synchronization

/// One end of an in-memory LE link. PDUs go straight to the other end's event stream;
/// at most ``capacity`` may wait there unconsumed, which is what flow control sees.
final class MemoryLink: ATTLink {
    static let capacity = 8

    let peerAddress: BluetoothAddress
    let peerAddressType: BluetoothAddressType
    let events: AsyncStream<LinkEvent>
    private let continuation: AsyncStream<LinkEvent>.Continuation

    /// Reports this end's traffic to a ``MemoryRadio`` tap. Only the central's end of a
    /// pair reports its end of life, so each link is reported closed once.
    struct Tap {
        var connection: UInt16
        var isCentral: Bool
        var report: @Sendable (MemoryTapEvent) -> Void
    }

    private struct State {
        weak var peer: MemoryLink?
        var tap: Tap?
        /// Our PDUs the peer has not consumed yet.
        var inFlight = 0
        var closed = false
        var readyWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    init(peerAddress: BluetoothAddress, peerAddressType: BluetoothAddressType) {
        self.peerAddress = peerAddress
        self.peerAddressType = peerAddressType
        (events, continuation) = AsyncStream.makeStream(of: LinkEvent.self)
    }

    /// A connected pair: the central's end and the peripheral's end.
    static func pair(central: (BluetoothAddress, BluetoothAddressType),
                     peripheral: (BluetoothAddress, BluetoothAddressType)) -> (central: MemoryLink, peripheral: MemoryLink) {
        let c = MemoryLink(peerAddress: peripheral.0, peerAddressType: peripheral.1)
        let p = MemoryLink(peerAddress: central.0, peerAddressType: central.1)
        c.state.withLock { $0.peer = p }
        p.state.withLock { $0.peer = c }
        return (c, p)
    }

    /// Starts reporting this end's sent PDUs (and, for the central's end, its closing).
    func setTap(_ tap: Tap) {
        state.withLock { $0.tap = tap }
    }

    func send(_ pdu: [UInt8]) {
        let peer: MemoryLink? = state.withLock { s in
            guard !s.closed, let peer = s.peer else { return nil }
            s.inFlight += 1
            // Reported under the lock, so the tap sees this end's PDUs in sending order.
            if let tap = s.tap { tap.report(.pdu(connection: tap.connection, fromCentral: tap.isCentral, pdu)) }
            return peer
        }
        peer?.continuation.yield(.received(pdu))
    }

    var canSend: Bool { state.withLock { !$0.closed && $0.inFlight < Self.capacity } }

    func sendReady() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { s -> Bool in
                if s.closed || s.inFlight < Self.capacity { return true }
                s.readyWaiters.append(waiter)
                return false
            }
            if ready { waiter.resume() }
        }
    }

    func consumed() {
        state.withLock { $0.peer }?.peerConsumedOne()
    }

    private func peerConsumedOne() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.inFlight = max(0, s.inFlight - 1)
            guard s.inFlight < Self.capacity else { return [] }
            defer { s.readyWaiters = [] }
            return s.readyWaiters
        }
        for w in waiters { w.resume() }
    }

    func close() {
        // Like HCI_Disconnect with Remote User Terminated: we see our own termination,
        // the peer sees the remote one.
        end(HCIStatus(0x16))
        state.withLock { $0.peer }?.end(HCIStatus(0x13))
    }

    /// Ends this side only, with `reason` (also used to simulate link loss).
    func end(_ reason: HCIStatus) {
        let (waiters, tap) = state.withLock { s -> ([CheckedContinuation<Void, Never>]?, Tap?) in
            guard !s.closed else { return (nil, nil) }
            s.closed = true
            defer { s.readyWaiters = [] }
            return (s.readyWaiters, s.tap)
        }
        guard let waiters else { return }
        if let tap, tap.isCentral { tap.report(.disconnected(connection: tap.connection, reason: reason)) }
        for w in waiters { w.resume() }
        continuation.yield(.closed(.hci(reason)))
        continuation.finish()
    }

    var isClosed: Bool { state.withLock { $0.closed } }
}
