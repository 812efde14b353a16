import HCI
import Synchronization

/// An ``ATTLink`` over a kernel L2CAP LE socket on the ATT channel (CID 4): one PDU per
/// datagram.
///
/// Receiving reads the socket only when the owner asks, a burst per wake-up, so what the
/// owner is not ready for stays in the kernel's receive buffer. Sending writes at once
/// when the kernel has room; otherwise PDUs wait in order for the socket to drain, and
/// ``canSend`` is false until they have left: the link's real credits.
final class KernelATTLink: ATTLink {
    /// The most PDUs one wake-up hands to the owner.
    static let batchLimit = 64

    let peerAddress: BluetoothAddress
    let peerAddressType: BluetoothAddressType
    private let socket: L2CAPATTSocket
    /// Called before the first security raise (the controller starts a pairing agent
    /// when no bluetoothd answers the kernel's confirmation requests).
    private let prepareSecurity: @Sendable () -> Void
    /// The level a first security raise asks for (``PairingConfiguration/kernelSecurityLevel``).
    private let requiredSecurity: BluetoothSecurityLevel

    private struct Outgoing {
        var queue: [[UInt8]] = []
        var draining = false
        var failed = false
        var readyWaiters: [CheckedContinuation<Void, Never>] = []
    }
    private let outgoing = Mutex(Outgoing())
    private let ended = Mutex(false)

    init(socket: L2CAPATTSocket, peerAddress: BluetoothAddress, peerAddressType: BluetoothAddressType,
         requiredSecurity: BluetoothSecurityLevel = .medium, prepareSecurity: @escaping @Sendable () -> Void = {}) {
        self.requiredSecurity = requiredSecurity
        self.socket = socket
        self.peerAddress = peerAddress
        self.peerAddressType = peerAddressType
        self.prepareSecurity = prepareSecurity
    }

    nonisolated(nonsending) func receive() async -> [LinkEvent] {
        if ended.withLock({ $0 }) { return [] }
        do {
            let batch = try await socket.receiveBatch(maximum: Self.batchLimit)
            return batch.map { .received($0) }
        } catch let error as KernelTransportError {
            ended.withLock { $0 = true }
            finishSending()
            // The kernel's errno says why the link ended; our own close (the socket is
            // closed by then) reads as 0x16.
            let ours = socket.isClosed
            if let reason = error.disconnectReason, !ours { return [.closed(.hci(HCIStatus(reason.rawValue)))] }
            return [.closed(ours ? .hci(HCIStatus.connectionTerminatedByLocalHost) : .transport("\(error)"))]
        } catch {
            ended.withLock { $0 = true }
            finishSending()
            return [.closed(.transport("\(error)"))]
        }
    }

    func send(_ pdu: [UInt8]) { send(pdu[...]) }

    /// Straight from the caller's buffer into the kernel when the socket has room; the
    /// bytes are copied into a queued array only when it has not.
    func send(_ pdu: ArraySlice<UInt8>) {
        let startDrain = outgoing.withLock { o -> Bool in
            guard !o.failed else { return false }
            if o.queue.isEmpty && !o.draining {
                // The fast path: straight into the kernel, no task.
                do {
                    if try socket.trySend(pdu) { return false }
                } catch {
                    o.failed = true
                    return false
                }
            }
            o.queue.append(Array(pdu))
            if o.draining { return false }
            o.draining = true
            return true
        }
        if startDrain { Task { await self.drain() } }
    }

    /// Sends what waits, in order, as the socket makes room.
    private func drain() async {
        while true {
            guard let next = outgoing.withLock({ o -> [UInt8]? in
                if o.failed || o.queue.isEmpty {
                    o.draining = false
                    return nil
                }
                return o.queue.first
            }) else { break }
            do {
                try await socket.send(next)
                outgoing.withLock { o in if !o.queue.isEmpty { o.queue.removeFirst() } }
            } catch {
                outgoing.withLock { $0.failed = true }
            }
        }
        let waiters = outgoing.withLock { o -> [CheckedContinuation<Void, Never>] in
            defer { o.readyWaiters = [] }
            return o.readyWaiters
        }
        for w in waiters { w.resume() }
    }

    private func finishSending() {
        let waiters = outgoing.withLock { o -> [CheckedContinuation<Void, Never>] in
            o.failed = true
            o.queue = []
            defer { o.readyWaiters = [] }
            return o.readyWaiters
        }
        for w in waiters { w.resume() }
    }

    var canSend: Bool {
        !socket.isClosed && outgoing.withLock { !$0.failed && $0.queue.isEmpty && !$0.draining }
    }

    /// A send failed (the kernel reported the link gone) or we closed the socket.
    var hasEnded: Bool {
        socket.isClosed || outgoing.withLock { $0.failed }
    }

    func sendReady() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let ready = outgoing.withLock { o -> Bool in
                if o.failed || (o.queue.isEmpty && !o.draining) { return true }
                o.readyWaiters.append(waiter)
                return false
            }
            if ready { waiter.resume() }
        }
    }

    /// Asks the kernel for a more secure link (`BT_SECURITY`): it encrypts with a stored
    /// key or pairs, and the socket is usable again once that is done.
    func raiseSecurity() async throws(AttuneError) {
        prepareSecurity()
        let current = (try? socket.securityLevel()) ?? .low
        let level = Self.target(current: current, required: requiredSecurity)
        guard let level else {
            throw .securityFailed("the link already has the kernel's highest security (\(current): authenticated LE "
                + "Secure Connections with a 128-bit key) and the peer still refused")
        }
        do {
            try await socket.raiseSecurity(to: level)
        } catch {
            // The kernel encrypts with a stored key, or pairs through the agent: either
            // there is no bond and pairing failed, or the stored bond no longer matches.
            throw .securityFailed("the kernel could not raise the link to \(level) (BT_SECURITY: pair, or encrypt "
                + "with the bond): \(error); pair the device first (bluetoothctl pair \(peerAddress)), or remove "
                + "a stale bond (bluetoothctl remove \(peerAddress)) and pair again")
        }
    }

    /// Pairs (or encrypts with the bond) up to the configured level; a link already there
    /// is left as it is.
    func pair() async throws(AttuneError) {
        if let current = try? socket.securityLevel(), current >= requiredSecurity { return }
        try await raiseSecurity()
    }

    /// The level to ask for: the configured one; on a link that already has it (the
    /// server still answered Insufficient Authentication), the next one up, so the kernel
    /// pairs again with MITM protection as bluetoothd's GATT client does. Nil at the top.
    static func target(current: BluetoothSecurityLevel, required: BluetoothSecurityLevel) -> BluetoothSecurityLevel? {
        if current < required { return required }
        return BluetoothSecurityLevel(rawValue: current.rawValue + 1)
    }

    func close() {
        finishSending()
        socket.close()
    }
}
