/// Host-to-controller ACL flow control (Vol 4 Part E §4.1.1): the controller holds at most
/// `totalPackets` ACL packets of at most `packetLength` bytes; each Number Of Completed
/// Packets event returns buffers. Connections take turns so one cannot starve the others.
struct ACLFlowControl: Sendable {
    private(set) var packetLength = 27
    private(set) var totalPackets = 0
    private(set) var inFlightTotal = 0
    private var inFlight: [UInt16: Int] = [:]
    private var queues: [UInt16: [[UInt8]]] = [:]
    /// Round-robin order of handles with queued packets.
    private var turn: [UInt16] = []

    mutating func configure(packetLength: Int, totalPackets: Int) {
        self.packetLength = max(1, packetLength)
        self.totalPackets = totalPackets
    }

    mutating func open(_ handle: UInt16) {
        inFlight[handle] = 0
    }

    func isOpen(_ handle: UInt16) -> Bool { inFlight[handle] != nil }

    func inFlight(on handle: UInt16) -> Int { inFlight[handle] ?? 0 }

    func queuedCount(on handle: UInt16) -> Int { queues[handle]?.count ?? 0 }

    mutating func enqueue(_ handle: UInt16, _ packets: [[UInt8]]) {
        if queues[handle, default: []].isEmpty { turn.append(handle) }
        queues[handle, default: []].append(contentsOf: packets)
    }

    /// Takes the packets the controller has room for now, one per connection in turn.
    mutating func sendable(into out: inout HostOutput) {
        while inFlightTotal < totalPackets, !turn.isEmpty {
            let handle = turn.removeFirst()
            guard var queue = queues[handle], !queue.isEmpty else { continue }
            out.send(queue.removeFirst())
            inFlight[handle, default: 0] += 1
            inFlightTotal += 1
            queues[handle] = queue
            if !queue.isEmpty { turn.append(handle) }
        }
    }

    /// Applies one Number Of Completed Packets entry. Returns a warning when the entry
    /// names an unknown handle or more packets than were in flight; the count is then
    /// clamped, so a lying controller cannot make the host overrun its buffers.
    mutating func completed(handle: UInt16, count: UInt16) -> HostWarning? {
        guard let current = inFlight[handle] else {
            return .completedPacketsMismatch(handle: handle, reported: count, inFlight: 0)
        }
        let freed = min(Int(count), current)
        inFlight[handle] = current - freed
        inFlightTotal -= freed
        return freed == Int(count) ? nil : .completedPacketsMismatch(handle: handle, reported: count, inFlight: current)
    }

    /// Drops a connection's packets not yet sent, returning how many; those in flight stay counted.
    mutating func discardQueued(on handle: UInt16) -> Int {
        let count = queues.removeValue(forKey: handle)?.count ?? 0
        turn.removeAll { $0 == handle }
        return count
    }

    /// Forgets a connection. Its packets still in the controller are flushed with the
    /// link, so their buffers come back without a Number Of Completed Packets (§4.1.1).
    mutating func close(_ handle: UInt16) {
        inFlightTotal -= inFlight.removeValue(forKey: handle) ?? 0
        queues[handle] = nil
        turn.removeAll { $0 == handle }
    }
}
