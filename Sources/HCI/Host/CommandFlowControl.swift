/// HCI command flow control (Vol 4 Part E §4.4): the controller says in every Command
/// Complete and Command Status how many commands it accepts now (Num_HCI_Command_Packets),
/// and the host sends no more than that. Unanswered commands time out.
struct CommandFlowControl: Sendable {
    /// What to do when a command finishes.
    enum Purpose: Hashable, Sendable {
        case initialization(InitializationStep)
        /// One of the commands that carry out a request; the last one completes it.
        case request(HostRequestID, last: Bool)
        case rawCommand(HostRequestID)
        /// LE Create Connection or LE Extended Create Connection; completes on LE Connection Complete.
        case connect(HostRequestID)
        /// HCI Disconnect; the request it completes, if any, is in the link's
        /// ``HostDisconnect`` (it may join after the command was queued).
        case disconnect(handle: UInt16)
        /// LE Create Connection Cancel, for a request or for the host's own connection timeout.
        case cancelConnect(HostRequestID?)
        /// Issued by the host itself (a timeout's cancel, an accepted parameter update).
        case `internal`
    }

    struct Command: Sendable {
        var opcode: HCIOpcode
        var frame: [UInt8]
        var purpose: Purpose
    }

    struct InFlight: Sendable {
        var command: Command
        var deadline: MonotonicTime
    }

    /// Before the first Command Complete the host may send one command (§4.4).
    private(set) var credits = 1
    private(set) var queue: [Command] = []
    private(set) var inFlight: [InFlight] = []

    mutating func enqueue(_ command: some HCICommand, _ purpose: Purpose) {
        queue.append(Command(opcode: command.opcode, frame: command.h4Frame, purpose: purpose))
    }

    mutating func enqueueRaw(opcode: HCIOpcode, parameters: [UInt8], _ purpose: Purpose) {
        let frame = [0x01, UInt8(truncatingIfNeeded: opcode.rawValue), UInt8(truncatingIfNeeded: opcode.rawValue >> 8),
                     UInt8(truncatingIfNeeded: parameters.count)] + parameters
        queue.append(Command(opcode: opcode, frame: frame, purpose: purpose))
    }

    /// Takes the commands that may be sent now, and starts their timeouts.
    mutating func sendable(at now: MonotonicTime, timeout: Duration, into out: inout HostOutput) {
        while credits > 0, !queue.isEmpty {
            let command = queue.removeFirst()
            credits -= 1
            inFlight.append(InFlight(command: command, deadline: now + timeout))
            out.send(command.frame)
        }
    }

    /// Records a Command Complete or Command Status and returns the command it finishes.
    /// The count in the event replaces the host's count: it is absolute, not an increment.
    mutating func finish(opcode: HCIOpcode, numberOfCommandPackets: UInt8) -> Command? {
        credits = Int(numberOfCommandPackets)
        // Opcode 0x0000 (no operation) only updates the count.
        guard opcode.rawValue != 0, let index = inFlight.firstIndex(where: { $0.command.opcode == opcode }) else {
            return nil
        }
        return inFlight.remove(at: index).command
    }

    /// The first in-flight command past its deadline.
    func expired(at now: MonotonicTime) -> Command? {
        inFlight.first(where: { $0.deadline <= now })?.command
    }

    var earliestDeadline: MonotonicTime? {
        var earliest: MonotonicTime?
        for command in inFlight where earliest.map({ command.deadline < $0 }) ?? true { earliest = command.deadline }
        return earliest
    }

    /// Drops the queued (not yet sent) commands of a request whose earlier command failed.
    mutating func dropQueued(of id: HostRequestID) {
        queue.removeAll { command in
            if case .request(id, _) = command.purpose { return true }
            if case .cancelConnect(id) = command.purpose { return true }
            return false
        }
    }

    /// Forgets every command before an HCI_Reset, returning those queued or in flight:
    /// the reset overtakes them, so none is waited for (a Command Complete that still
    /// arrives for one is a stray completion). The reset itself goes out at once, as the
    /// first command after power-on does, whatever count the controller gave last.
    mutating func resetController() -> [Command] {
        credits = 1
        return removeAll()
    }

    /// Empties everything, returning every command that was queued or in flight.
    mutating func removeAll() -> [Command] {
        let all = inFlight.map(\.command) + queue
        inFlight = []
        queue = []
        return all
    }
}
