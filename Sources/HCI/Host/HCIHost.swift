/// A sans-I/O Bluetooth LE host over HCI: initialisation, command and ACL flow control,
/// scanning, advertising, connections, L2CAP fragmentation and reassembly, and the
/// fixed channels (ATT 0x0004, LE signaling 0x0005, SMP 0x0006).
///
/// Whole H4 packets and time go in; packets to send, events, completions, the next
/// deadline and the reason it stopped come out in a caller-owned ``HostOutput`` that each
/// call appends to (clear it with ``HostOutput/removeAll()`` to reuse its storage). It
/// opens no sockets, starts no threads and reads no clock, so tests, replays and fuzzers
/// drive it directly.
public struct HCIHost: Sendable {
    enum Phase: Sendable { case idle, initializing, ready, stopped }

    public let configuration: HostConfiguration
    /// What initialisation learnt; nil until ``HostEvent/ready(_:)``.
    public internal(set) var controller: ControllerInfo?

    var phase = Phase.idle
    var commands = CommandFlowControl()
    var acl = ACLFlowControl()
    var connections: [UInt16: HostConnection] = [:]
    var reassembler: ACLReassembler<UInt8>
    var pendingConnection: PendingConnection?
    var discovered = Discovered()
    var extendedReports = ExtendedReportAssembler()
    var warnings = HostWarningLimiter()
    /// The ``HostRequest/reset`` running: it completes when the initialisation it started finishes.
    var resetRequest: HostRequestID?
    /// The caller's output while a call is in progress (swapped in and back out, so the
    /// caller's storage is reused and nothing is copied); empty between calls.
    var output = HostOutput(reservingCapacity: false)

    /// Facts gathered during initialisation.
    struct Discovered: Sendable {
        var supportedCommands = SupportedCommands(octets: [])
        var lmpFeatures: UInt64 = 0
        var leFeatures = LEFeatures()
        var aclDataPacketLength = 0
        var totalACLDataPackets = 0
        var publicAddress = BluetoothAddress(rawValue: 0)
        /// Whether Read BD_ADDR answered and the public address replaced the configured random one.
        var usesPublicAddress = false
    }

    /// The random address we use as our own: the configured one, unless initialisation
    /// found a public address that ``HostConfiguration/prefersPublicAddress`` chose instead.
    public var randomAddress: BluetoothAddress? { discovered.usesPublicAddress ? nil : configuration.randomAddress }

    /// Own_Address_Type to put in every advertising, scanning and initiating command.
    public var ownAddressType: OwnAddressType { randomAddress == nil ? .public : .random }

    public init(configuration: HostConfiguration = HostConfiguration()) {
        self.configuration = configuration
        self.reassembler = ACLReassembler(maximumFrameLength: configuration.maximumL2CAPFrameLength)
    }

    /// True once initialisation finished and until the host stops.
    public var isReady: Bool { phase == .ready }

    /// Every warning raised so far, by kind, including those only summarised in a
    /// ``HostWarning/suppressed(_:count:)``.
    public var warningCounts: HostWarningCounts { warnings.counts }

    /// The handles of the live connections.
    public var connectionHandles: [UInt16] { connections.keys.sorted() }

    /// ACL packets of a connection waiting for controller buffers (not yet sent). Zero
    /// means a new PDU goes out as soon as it is queued, if a buffer is free.
    public func queuedACLPacketCount(on handle: UInt16) -> Int { acl.queuedCount(on: handle) }

    /// The live connection with this handle.
    public func connection(_ handle: UInt16) -> ConnectionInfo? { connections[handle]?.info }

    /// Whether the link is encrypted, as the last Encryption Change reported; nil when no
    /// connection has this handle.
    public func isEncrypted(_ handle: UInt16) -> Bool? { connections[handle]?.isEncrypted }

    /// Starts the initialisation sequence with HCI_Reset.
    public mutating func start(at now: MonotonicTime, into out: inout HostOutput) {
        guard phase == .idle else { return }
        swap(&output, &out)
        defer { swap(&output, &out) }
        phase = .initializing
        enqueueInitialization(.reset)
        flush(at: now)
    }

    /// Feeds one whole H4 packet from the controller, indicator byte first.
    public mutating func receive(_ packet: [UInt8], at now: MonotonicTime, into out: inout HostOutput) {
        guard phase != .stopped, let indicator = packet.first else { return }
        swap(&output, &out)
        defer { swap(&output, &out) }
        switch indicator {
        case 0x04: receiveEvent(packet[1...], at: now)
        case 0x02: receiveACL(packet[1...])
        default: warn(.unexpectedPacketType(indicator))
        }
        flush(at: now)
    }

    /// Carries out an application request.
    public mutating func perform(_ request: HostRequest, id: HostRequestID, at now: MonotonicTime,
                                 into out: inout HostOutput) {
        swap(&output, &out)
        defer { swap(&output, &out) }
        if phase != .ready {
            complete(id, .failure(.notReady))
        } else {
            start(request, id: id, at: now)
        }
        flush(at: now)
    }

    /// Lets time pass: command timeouts, connection timeouts, the drain limits of
    /// disconnects and the summaries of suppressed warnings fire here.
    public mutating func tick(at now: MonotonicTime, into out: inout HostOutput) {
        guard phase != .stopped else { return }
        swap(&output, &out)
        defer { swap(&output, &out) }
        if let command = commands.expired(at: now) {
            stop(.commandTimeout(command.opcode))
            flush(at: now)
            return
        }
        if var pending = pendingConnection, pending.cancellation == nil, pending.deadline <= now {
            pending.cancellation = .connectionTimedOut
            pendingConnection = pending
            commands.enqueue(LECreateConnectionCancel(), .cancelConnect(nil))
        }
        if let pending = pendingConnection, let grace = pending.cancelGraceDeadline, grace <= now {
            pendingConnection = nil
            complete(pending.id, .failure(pending.cancellation ?? .connectionCancelled))
        }
        flush(at: now)
    }

    /// The stream to the controller ended or failed: every connection and request ends with `reason`.
    public mutating func transportClosed(_ reason: String, at now: MonotonicTime, into out: inout HostOutput) {
        guard phase != .stopped else { return }
        swap(&output, &out)
        defer { swap(&output, &out) }
        stop(.transportClosed(reason))
        flush(at: now)
    }

    // MARK: - Shared machinery

    /// Counts a warning and delivers it unless its kind is over its budget for the window.
    mutating func warn(_ warning: HostWarning) {
        if warnings.record(warning) { output.events.append(.warning(warning)) }
    }

    mutating func complete(_ id: HostRequestID, _ result: Result<HostCompletion, HostError>) {
        output.completions.append(HostOutput.Completion(id: id, result: result))
    }

    /// Ends the host: every request fails and every connection ends with `error`.
    mutating func stop(_ error: HostError) {
        guard phase != .stopped else { return }
        phase = .stopped
        var failed = Set<HostRequestID>()
        for command in commands.removeAll() {
            switch command.purpose {
            case .request(let id, _), .rawCommand(let id), .connect(let id):
                if failed.insert(id).inserted { complete(id, .failure(error)) }
            case .cancelConnect(let id?):
                if failed.insert(id).inserted { complete(id, .failure(error)) }
            case .disconnect, .initialization, .internal, .cancelConnect(nil):
                // A disconnect's request, if any, is its link's, failed below.
                break
            }
        }
        if let pending = pendingConnection, failed.insert(pending.id).inserted {
            complete(pending.id, .failure(error))
        }
        pendingConnection = nil
        if let id = resetRequest, failed.insert(id).inserted { complete(id, .failure(error)) }
        resetRequest = nil
        for handle in connections.keys.sorted() {
            if let id = connections[handle]?.disconnect.requestID, failed.insert(id).inserted {
                complete(id, .failure(error))
            }
            output.events.append(.connectionEnded(handle: handle, error: error))
            acl.close(handle)
        }
        connections = [:]
        for summary in warnings.drainSummaries() { output.events.append(.warning(summary)) }
        output.closeError = error
        output.deadline = nil
    }

    /// Sends what flow control allows and records the next deadline (replacing any
    /// earlier one in the output; none once stopped).
    mutating func flush(at now: MonotonicTime) {
        guard phase != .stopped else { return }
        // Before the commands go: a link drained by this call's input disconnects in it.
        let drainDeadline = advanceDisconnects(at: now)
        commands.sendable(at: now, timeout: configuration.commandTimeout, into: &output)
        acl.sendable(into: &output)
        for summary in warnings.roll(at: now) { output.events.append(.warning(summary)) }
        var next = Self.earlier(commands.earliestDeadline, drainDeadline)
        if let pending = pendingConnection {
            if pending.cancellation == nil { next = Self.earlier(next, pending.deadline) }
            next = Self.earlier(next, pending.cancelGraceDeadline)
        }
        output.deadline = Self.earlier(next, warnings.deadline)
    }

    /// The earlier of two optional instants; written out so the hot path builds no array.
    @inline(__always)
    static func earlier(_ a: MonotonicTime?, _ b: MonotonicTime?) -> MonotonicTime? {
        guard let a else { return b }
        guard let b else { return a }
        return min(a, b)
    }
}
