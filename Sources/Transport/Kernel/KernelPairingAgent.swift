import CBlueZ
import EventLoop
import Glibc
import HCI
import Synchronization

/// A pairing agent on the kernel's management channel (`HCI_CHANNEL_CONTROL`) for hosts
/// without bluetoothd: it answers the kernel SMP's questions (Just Works and numeric
/// comparison confirmations, passkey entry; passkey display is passed on) through a
/// ``KernelPairingHandler``, which is what lets ``L2CAPATTSocket/raiseSecurity(to:timeout:)``
/// finish. Without any agent, pairing waits for an answer that never comes and SMP times
/// out after 30 s.
///
/// It also reports the keys the kernel hands out after pairing (`onKey`) and loads stored
/// ones back (``loadKeys(longTermKeys:identityResolvingKeys:adapterIndex:)``).
///
/// Needs CAP_NET_ADMIN. Do not run it beside bluetoothd, which is the agent there: both
/// would answer the kernel, and pairing fails (`EACCES`).
public final class KernelPairingAgent: Sendable {
    /// One request the agent saw and what it answered.
    public struct Answered: Hashable, Sendable {
        public var request: KernelPairingRequest
        /// What went back to the kernel; nil for Passkey Notify, which takes no reply.
        public var answer: KernelPairingAnswer?
        /// The handler did not answer within ``answerTimeout`` and the agent refused.
        public var timedOut: Bool
    }

    /// How long a handler may take before the agent refuses for it: well inside the
    /// kernel's 30 s SMP timeout, so the kernel hears a clean refusal rather than nothing.
    public let answerTimeout: Duration
    public let handler: any KernelPairingHandler

    static let commandCompleteEvent: UInt16 = 0x0001
    static let commandStatusEvent: UInt16 = 0x0002
    static let setBondable: UInt16 = 0x0009
    static let setIOCapability: UInt16 = 0x0018
    static let userConfirmReply: UInt16 = 0x001C
    static let userConfirmNegativeReply: UInt16 = 0x001D
    static let userPasskeyReply: UInt16 = 0x001E
    static let userPasskeyNegativeReply: UInt16 = 0x001F
    static let unpairDevice: UInt16 = 0x001B
    /// mgmt status Not Paired (doc/mgmt-api.txt).
    static let notPaired: UInt8 = 0x06

    let socket: KernelSocket
    /// Told each key as the kernel reports it, on the agent's reading task: no buffer sits
    /// between the kernel and the store, so no key can be dropped on the way.
    private let onKey: @Sendable (KernelPairingKey) -> Void
    /// Told each request once it is answered.
    private let onAnswer: @Sendable (Answered) -> Void
    private let waiters = Mutex(CommandWaiters())
    private let daemonRunning: @Sendable () -> Bool
    /// The adapters whose requests and keys this agent handles; nil for all.
    public let adapters: Set<UInt16>?
    /// Requests handed to the handler and not yet answered.
    private let pendingAnswers = Mutex(0)
    /// More than any real pairing asks at once (one or two per link).
    static let answersInFlight = 16

    /// Opens the control channel and starts answering.
    ///
    /// - Parameters:
    ///   - handler: answers requests; by default Just Works only.
    ///   - answerTimeout: at most 25 s (larger values are clamped), so the refusal reaches
    ///     the kernel before its SMP timer ends the pairing.
    ///   - daemonRunning: whether bluetoothd runs (for ``loadKeys(longTermKeys:identityResolvingKeys:adapterIndex:)``).
    ///   - adapters: only these adapters' requests and keys (every control socket hears
    ///     all adapters; another agent may answer for the others); nil for all.
    ///   - onKey: each key the kernel reports (New Long Term Key, New Identity Resolving
    ///     Key, New Signature Resolving Key), in order, for the caller to store. It must
    ///     return promptly: the agent reads nothing else meanwhile.
    ///   - onAnswer: each request and what the agent answered.
    public init(handler: any KernelPairingHandler = JustWorksPairingHandler(), answerTimeout: Duration = .seconds(20),
                loop: KernelEventLoop? = nil,
                daemonRunning: @escaping @Sendable () -> Bool = { BluetoothDaemonPresence.isRunning() },
                adapters: Set<UInt16>? = nil,
                onKey: @escaping @Sendable (KernelPairingKey) -> Void = { _ in },
                onAnswer: @escaping @Sendable (Answered) -> Void = { _ in }) throws {
        self.onKey = onKey
        self.onAnswer = onAnswer
        let loop = try loop ?? KernelEventLoop.shared()
        self.adapters = adapters
        self.handler = handler
        self.answerTimeout = min(answerTimeout, .seconds(25))
        self.daemonRunning = daemonRunning
        let fd = Glibc.socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue),
                              BTPROTO_HCI)
        guard fd >= 0 else { throw KernelTransportError.current("socket(AF_BLUETOOTH, HCI control)") }
        socket = try KernelSocket(adopting: fd, loop: loop)
        do {
            try socket.withDescriptor("bind(control)") { fd in
                var address = sockaddr_hci()
                address.hci_family = sa_family_t(AF_BLUETOOTH)
                address.hci_dev = UInt16(HCI_DEV_NONE)
                address.hci_channel = UInt16(HCI_CHANNEL_CONTROL)
                let bound = withUnsafePointer(to: &address) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_hci>.size))
                    }
                }
                guard bound == 0 else { throw KernelTransportError.current("bind(HCI_CHANNEL_CONTROL)") }
            }
        } catch {
            socket.close()
            throw error
        }
        let socket = self.socket
        Task { [weak self] in
            while let bytes = try? await Self.read(socket) {
                guard let self else { break }
                self.dispatch(bytes)
            }
            self?.finish()
        }
    }

    deinit { close() }

    /// Stops answering; commands waiting for the kernel fail.
    public func close() {
        socket.close()
        finish()
    }

    private func finish() {
        for waiter in waiters.withLock({ $0.removeAll() }) {
            if let timer = waiter.timer { _ = socket.loop.cancel(timer) }
            waiter.continuation.resume(returning: .failure(MgmtCommandError(opcode: waiter.opcode, adapterIndex: waiter.index,
                                                                            reason: .notSent("the agent closed"))))
        }
    }

    // MARK: - Commands

    /// Sets the handler's IO capability (mgmt Set IO Capability) on each adapter; does
    /// nothing when the handler leaves it to the kernel.
    public func prepare(adapters: [UInt16]) async throws {
        guard let capability = handler.ioCapability else { return }
        for index in adapters { try await setIOCapability(capability, adapterIndex: index) }
    }

    /// mgmt Set IO Capability: what the kernel's SMP offers in its Pairing Request or
    /// Response, and so which association model the pairing uses.
    public func setIOCapability(_ capability: KernelIOCapability, adapterIndex: UInt16) async throws {
        _ = try await command(Self.setIOCapability, index: adapterIndex, parameters: [capability.rawValue])
    }

    /// mgmt Set Bondable: whether the kernel's SMP asks for bonding, which is what makes
    /// both sides distribute keys (and the kernel report them with a store hint).
    public func setBondable(_ bondable: Bool, adapterIndex: UInt16) async throws {
        _ = try await command(Self.setBondable, index: adapterIndex, parameters: [bondable ? 1 : 0])
    }

    /// What ``loadKeys(longTermKeys:identityResolvingKeys:adapterIndex:)`` did.
    public enum KeyLoad: Hashable, Sendable {
        /// The keys the kernel now has (invalid ones left out: see the method).
        case loaded(longTermKeys: Int, identityResolvingKeys: Int)
        /// bluetoothd runs and loads its own keys, which ours would replace; nothing sent.
        case skippedBesideBluetoothd
    }

    /// Gives the kernel stored keys back on start (mgmt Load Long Term Keys and Load
    /// Identity Resolving Keys), so a bonded peer encrypts without pairing again. Each
    /// command replaces the adapter's whole list, so pass every bond at once.
    ///
    /// Keys the kernel would refuse, failing the whole command, are left out: any not on
    /// `adapterIndex`, a BR/EDR address, a random address that is not static (identities
    /// are public or static random), an LTK size outside 7–16. Beside bluetoothd nothing is
    /// sent: it owns the adapters' keys.
    public func loadKeys(longTermKeys: [KernelLongTermKey], identityResolvingKeys: [KernelIdentityResolvingKey],
                         adapterIndex: UInt16) async throws -> KeyLoad {
        guard !daemonRunning() else { return .skippedBesideBluetoothd }
        let ltks = longTermKeys.filter { $0.peer.isLoadableIdentity(on: adapterIndex) && (7...16).contains($0.encryptionSize) }
        let irks = identityResolvingKeys.filter { $0.peer.isLoadableIdentity(on: adapterIndex) }
        if let command = KernelKeyCommands.loadIdentityResolvingKeys(irks, index: adapterIndex) {
            _ = try await send(command, opcode: KernelKeyCommands.loadIdentityResolvingKeys, index: adapterIndex)
        }
        if let command = KernelKeyCommands.loadLongTermKeys(ltks, index: adapterIndex) {
            _ = try await send(command, opcode: KernelKeyCommands.loadLongTermKeys, index: adapterIndex)
        }
        return .loaded(longTermKeys: ltks.count, identityResolvingKeys: irks.count)
    }

    /// mgmt Unpair Device: the kernel forgets the peer's keys (LTK, IRK, CSRK) and, with
    /// `disconnect`, ends a link to it. Returns false when the kernel held no keys for it
    /// (Not Paired), which is not an error for someone forgetting a peer.
    public func unpair(_ peer: KernelPeer, disconnect: Bool = true) async throws -> Bool {
        do {
            _ = try await command(Self.unpairDevice, index: peer.adapterIndex,
                                  parameters: peer.encodedAddress + [disconnect ? 1 : 0])
            return true
        } catch let error as MgmtCommandError where error.reason == .status(Self.notPaired) {
            return false
        }
    }

    /// Sends a command and waits for its Command Complete (return parameters) or Command
    /// Status (a failure).
    func command(_ opcode: UInt16, index: UInt16, parameters: [UInt8] = [], timeout: Duration = .seconds(5)) async throws -> [UInt8] {
        guard let packet = MgmtPacket.command(opcode, index: index, parameters: parameters) else {
            throw MgmtCommandError(opcode: opcode, adapterIndex: index, reason: .notSent("parameters too long"))
        }
        return try await send(packet, opcode: opcode, index: index, timeout: timeout)
    }

    private func send(_ packet: [UInt8], opcode: UInt16, index: UInt16, timeout: Duration = .seconds(5)) async throws -> [UInt8] {
        let id = waiters.withLock { $0.nextID() }
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<[UInt8], MgmtCommandError>, Never>) in
            waiters.withLock { $0.add(CommandWaiters.Waiter(id: id, opcode: opcode, index: index, continuation: continuation)) }
            let socket = self.socket
            // The loop's timer, not a sleeping task: nothing lingers once the answer came.
            let timer = socket.loop.schedule(after: timeout) { [weak self] in self?.fail(id, .timedOut) }
            waiters.withLock { $0.setTimer(timer, for: id) }
            Task { [weak self] in
                do {
                    try await Self.write(packet, on: socket)
                } catch {
                    self?.fail(id, .notSent("\(error)"))
                }
            }
        }
        return try result.get()
    }

    private func fail(_ id: UInt64, _ reason: MgmtCommandError.Reason) {
        guard let waiter = waiters.withLock({ $0.remove(id) }) else { return }
        if let timer = waiter.timer { _ = socket.loop.cancel(timer) }
        waiter.continuation.resume(returning: .failure(MgmtCommandError(opcode: waiter.opcode, adapterIndex: waiter.index, reason: reason)))
    }

    // MARK: - Events

    private func dispatch(_ bytes: [UInt8]) {
        guard let packet = MgmtPacket(decoding: bytes) else { return }
        switch packet.code {
        case Self.commandCompleteEvent, Self.commandStatusEvent:
            var reader = MgmtReader(packet.parameters)
            guard let opcode = reader.uint16(), let status = reader.uint8(),
                  let waiter = waiters.withLock({ $0.removeFirst(opcode: opcode, index: packet.index) }) else { return }
            if let timer = waiter.timer { _ = socket.loop.cancel(timer) }
            let rest = reader.take(reader.remaining).map(Array.init) ?? []
            waiter.continuation.resume(returning: status == 0
                ? .success(rest) : .failure(MgmtCommandError(opcode: opcode, adapterIndex: packet.index, reason: .status(status))))
        default:
            if let adapters, !adapters.contains(packet.index) { return }
            switch KernelManagementEvent(packet) {
            case .key(let key):
                onKey(key)
            case .pairingRequest(let request):
                // A kernel (or a peer through it) flooding requests gets refusals at once
                // beyond a few in flight, instead of a task per request.
                guard pendingAnswers.withLock({ count -> Bool in
                    guard count < Self.answersInFlight else { return false }
                    count += 1
                    return true
                }) else {
                    let socket = self.socket
                    if let refusal = Self.reply(to: request, with: .reject) { Task { try? await Self.write(refusal, on: socket) } }
                    return
                }
                let handler = self.handler
                let timeout = answerTimeout
                let socket = self.socket
                let sink = onAnswer
                // Each request on its own task: a person typing a passkey holds up nothing else.
                Task { [weak self] in
                    let answered = await Self.answer(request, handler: handler, timeout: timeout)
                    self?.pendingAnswers.withLock { $0 -= 1 }
                    if let reply = Self.reply(to: request, with: answered.answer) {
                        do { try await Self.write(reply, on: socket) } catch { return }
                    }
                    sink(answered)
                }
            case nil:
                break
            }
        }
    }

    /// Asks the handler, and refuses for it once `timeout` passes. Passkey Notify is shown
    /// to the handler without waiting for it.
    static func answer(_ request: KernelPairingRequest, handler: any KernelPairingHandler, timeout: Duration) async -> Answered {
        guard request.needsAnswer else {
            Task { _ = await handler.answer(request) }
            return Answered(request: request, answer: nil, timedOut: false)
        }
        let race = AnswerRace()
        let answer = await withCheckedContinuation { (continuation: CheckedContinuation<KernelPairingAnswer?, Never>) in
            race.begin(continuation)
            let work = Task { race.finish(await handler.answer(request)) }
            let timer = Task {
                try? await Task.sleep(for: timeout)
                work.cancel()
                race.finish(nil)
            }
            race.onFinish { timer.cancel() }
        }
        return Answered(request: request, answer: answer ?? .reject, timedOut: answer == nil)
    }

    /// The management command that carries `answer` for `request`, or nil when the request
    /// takes no reply. Anything but a fitting answer is a refusal: a passkey to a
    /// confirmation, a yes to a passkey request, a passkey above 999999.
    static func reply(to request: KernelPairingRequest, with answer: KernelPairingAnswer?) -> [UInt8]? {
        let index = request.peer.adapterIndex
        let address = request.peer.encodedAddress
        switch request.kind {
        case .justWorks, .numericComparison:
            return MgmtPacket.command(answer == .accept ? userConfirmReply : userConfirmNegativeReply, index: index, parameters: address)
        case .passkeyEntry:
            if case .passkey(let passkey) = answer, passkey <= 999_999 {
                return MgmtPacket.command(userPasskeyReply, index: index, parameters: address + passkey.mgmtBytes)
            }
            return MgmtPacket.command(userPasskeyNegativeReply, index: index, parameters: address)
        case .passkeyDisplay:
            return nil
        }
    }

    // MARK: - Socket

    private static func read(_ socket: KernelSocket) async throws -> [UInt8] {
        try await socket.retrying("mgmt event", direction: .read) { fd -> [UInt8]? in
            // Larger than any event this agent reads; a longer one arrives cut short and
            // fails its length check.
            let capacity = 2048
            var length = 0
            let bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, count in
                length = Glibc.read(fd, buffer.baseAddress, capacity)
                count = max(0, length)
            }
            if length >= 0 { return bytes }
            if errno == EAGAIN || errno == EINTR { return nil }
            throw KernelTransportError.current("mgmt event")
        }
    }

    private static func write(_ packet: [UInt8], on socket: KernelSocket) async throws {
        _ = try await socket.retrying("mgmt command", direction: .write) { fd -> Bool? in
            let written = packet.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written >= 0 { return true }
            if errno == EAGAIN || errno == EINTR { return nil }
            throw KernelTransportError.current("mgmt command")
        }
    }
}

/// Commands waiting for their Command Complete or Command Status, oldest first: the
/// kernel answers each socket's commands in order.
struct CommandWaiters: ~Copyable {
    struct Waiter {
        var id: UInt64
        var opcode: UInt16
        var index: UInt16
        var continuation: CheckedContinuation<Result<[UInt8], MgmtCommandError>, Never>
        var timer: KernelEventLoop.Timer? = nil
    }

    private var waiting: [Waiter] = []
    private var lastID: UInt64 = 0

    mutating func nextID() -> UInt64 {
        lastID &+= 1
        return lastID
    }

    mutating func add(_ waiter: Waiter) { waiting.append(waiter) }

    mutating func setTimer(_ timer: KernelEventLoop.Timer, for id: UInt64) {
        guard let position = waiting.firstIndex(where: { $0.id == id }) else { return }
        waiting[position].timer = timer
    }

    mutating func remove(_ id: UInt64) -> Waiter? {
        guard let position = waiting.firstIndex(where: { $0.id == id }) else { return nil }
        return waiting.remove(at: position)
    }

    mutating func removeFirst(opcode: UInt16, index: UInt16) -> Waiter? {
        guard let position = waiting.firstIndex(where: { $0.opcode == opcode && $0.index == index }) else { return nil }
        return waiting.remove(at: position)
    }

    mutating func removeAll() -> [Waiter] {
        defer { waiting = [] }
        return waiting
    }
}

/// The first of a handler's answer and the agent's timer to arrive wins; the other is
/// dropped.
final class AnswerRace: Sendable {
    private struct State {
        var continuation: CheckedContinuation<KernelPairingAnswer?, Never>?
        var finished = false
        var cleanup: (@Sendable () -> Void)?
    }
    private let state = Mutex(State())

    func begin(_ continuation: CheckedContinuation<KernelPairingAnswer?, Never>) {
        state.withLock { $0.continuation = continuation }
    }

    /// Runs `cleanup` once the race is decided (at once if it already is).
    func onFinish(_ cleanup: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { s -> Bool in
            if s.finished { return true }
            s.cleanup = cleanup
            return false
        }
        if runNow { cleanup() }
    }

    func finish(_ answer: KernelPairingAnswer?) {
        let (continuation, cleanup) = state.withLock { s -> (CheckedContinuation<KernelPairingAnswer?, Never>?, (@Sendable () -> Void)?) in
            guard !s.finished else { return (nil, nil) }
            s.finished = true
            defer { s.continuation = nil; s.cleanup = nil }
            return (s.continuation, s.cleanup)
        }
        continuation?.resume(returning: answer)
        cleanup?()
    }
}

extension KernelPeer {
    /// An identity the kernel's Load commands accept on `adapterIndex`: LE public, or LE
    /// static random (two top bits set).
    func isLoadableIdentity(on adapterIndex: UInt16) -> Bool {
        guard self.adapterIndex == adapterIndex else { return false }
        switch addressType {
        case .lePublic: return true
        case .leRandom: return address.bytes.0 & 0xC0 == 0xC0
        case .bredr: return false
        }
    }
}
