/// A sans-I/O Bluetooth LE host over HCI: initialisation, command and ACL flow control,
/// scanning, advertising, connections, L2CAP fragmentation and reassembly, and the
/// fixed channels (ATT 0x0004, LE signaling 0x0005, SMP 0x0006).
///
/// Whole H4 packets and time go in; packets to send, events, completions and deadlines
/// come out as ``HostAction``s. It opens no sockets, starts no threads and reads no clock,
/// so tests, replays and fuzzers drive it directly.
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
    /// Actions produced by the call in progress.
    var actions: [HostAction] = []

    /// Facts gathered during initialisation.
    struct Discovered: Sendable {
        var supportedCommands = SupportedCommands(octets: [])
        var lmpFeatures: UInt64 = 0
        var leFeatures = LEFeatures()
        var aclDataPacketLength = 0
        var totalACLDataPackets = 0
        var publicAddress = BluetoothAddress(rawValue: 0)
    }

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

    /// Starts the initialisation sequence with HCI_Reset.
    public mutating func start(at now: ContinuousClock.Instant) -> [HostAction] {
        guard phase == .idle else { return [] }
        phase = .initializing
        enqueueInitialization(.reset)
        return flush(at: now)
    }

    /// Feeds one whole H4 packet from the controller, indicator byte first.
    public mutating func receive(_ packet: [UInt8], at now: ContinuousClock.Instant) -> [HostAction] {
        guard phase != .stopped, let indicator = packet.first else { return [] }
        switch indicator {
        case 0x04: receiveEvent(packet[1...], at: now)
        case 0x02: receiveACL(packet[1...])
        default: warn(.unexpectedPacketType(indicator))
        }
        return flush(at: now)
    }

    /// Carries out an application request.
    public mutating func perform(_ request: HostRequest, id: HostRequestID, at now: ContinuousClock.Instant) -> [HostAction] {
        if phase != .ready {
            actions.append(.complete(id, .failure(.notReady)))
        } else {
            start(request, id: id, at: now)
        }
        return flush(at: now)
    }

    /// Lets time pass: command timeouts, connection timeouts and the summaries of
    /// suppressed warnings fire here.
    public mutating func tick(at now: ContinuousClock.Instant) -> [HostAction] {
        guard phase != .stopped else { return [] }
        if let command = commands.expired(at: now) {
            stop(.commandTimeout(command.opcode))
            return flush(at: now)
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
        return flush(at: now)
    }

    /// The stream to the controller ended or failed: every connection and request ends with `reason`.
    public mutating func transportClosed(_ reason: String, at now: ContinuousClock.Instant) -> [HostAction] {
        guard phase != .stopped else { return [] }
        stop(.transportClosed(reason))
        return flush(at: now)
    }

    // MARK: - Shared machinery

    /// Counts a warning and delivers it unless its kind is over its budget for the window.
    mutating func warn(_ warning: HostWarning) {
        if warnings.record(warning) { actions.append(.deliver(.warning(warning))) }
    }

    mutating func complete(_ id: HostRequestID, _ result: Result<HostCompletion, HostError>) {
        actions.append(.complete(id, result))
    }

    /// Ends the host: every request fails and every connection ends with `error`.
    mutating func stop(_ error: HostError) {
        guard phase != .stopped else { return }
        phase = .stopped
        var failed = Set<HostRequestID>()
        for command in commands.removeAll() {
            switch command.purpose {
            case .request(let id, _), .rawCommand(let id), .connect(let id), .disconnect(let id, _):
                if failed.insert(id).inserted { complete(id, .failure(error)) }
            case .cancelConnect(let id?):
                if failed.insert(id).inserted { complete(id, .failure(error)) }
            case .initialization, .internal, .cancelConnect(nil): break
            }
        }
        if let pending = pendingConnection, failed.insert(pending.id).inserted {
            complete(pending.id, .failure(error))
        }
        pendingConnection = nil
        for handle in connections.keys.sorted() {
            if let id = connections[handle]?.pendingDisconnect, failed.insert(id).inserted {
                complete(id, .failure(error))
            }
            actions.append(.deliver(.connectionEnded(handle: handle, error: error)))
            acl.close(handle)
        }
        connections = [:]
        for summary in warnings.drainSummaries() { actions.append(.deliver(.warning(summary))) }
        actions.append(.close(error))
    }

    /// Sends what flow control allows, schedules the next deadline, and hands back the actions.
    mutating func flush(at now: ContinuousClock.Instant) -> [HostAction] {
        if phase != .stopped {
            for command in commands.sendable(at: now, timeout: configuration.commandTimeout) {
                actions.append(.send(command.frame))
            }
            for packet in acl.sendable() {
                actions.append(.send(packet))
            }
            for summary in warnings.roll(at: now) { actions.append(.deliver(.warning(summary))) }
            let deadlines = [commands.earliestDeadline,
                             pendingConnection?.cancellation == nil ? pendingConnection?.deadline : nil,
                             pendingConnection?.cancelGraceDeadline,
                             warnings.deadline]
            if let next = deadlines.compactMap({ $0 }).min() {
                actions.append(.schedule(next))
            }
        }
        defer { actions = [] }
        return actions
    }
}
