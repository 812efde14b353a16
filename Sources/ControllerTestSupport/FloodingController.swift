#if canImport(Glibc)
import Glibc
#endif
import BluetoothCore
import Foundation
import Transport

/// A controller and its connected peripheral, played in-process on the far end of a UNIX
/// socket, that floods: it answers the userland host's initialisation, connects as the
/// central asked, serves an ATT server (``HeartRateATTServer`` unless told otherwise),
/// returns Number Of Completed Packets for the host's ACL, and floods on ``flood(_:)``,
/// from the moment the host connects to the socket (`floodOnAccept`), from the moment
/// it reports the connection (`floodOnConnect`), from the central's first discovery
/// request (`floodOnDiscovery`), or from its first Write Request (`floodOnSubscribe`).
///
/// Unlike ``ScriptedController`` it writes many packets per write() call: a flood of
/// hundreds of thousands of packets one byte per call would measure the syscalls.
/// Only the writer thread sends, so a flood blocked on a full socket (the host stopped
/// reading: back-pressure) just waits there, and the reader goes on taking the host's
/// commands and requests; their answers go out ahead of the rest of the flood.
public final class FloodingController: @unchecked Sendable {
    /// What one unit of a flood is.
    public enum Flood: Sendable {
        /// A Handle Value Notification with a 20-byte value for `handle`.
        case notifications(handle: UInt16)
        /// A Handle Value Indication with a 20-byte value for `handle`, sent without
        /// waiting for confirmations: a peer that breaks ATT's sequential protocol.
        case indications(handle: UInt16)
        /// Three events a host must drop and count: Number Of Completed Packets for a
        /// handle with no connection, a Command Complete for a command never sent, and an
        /// LE Connection Complete cut to its subevent code.
        case hostileEvents
    }

    /// Bytes of one notification on the wire: H4 indicator, ACL and L2CAP headers, ATT
    /// opcode and handle, 20-byte value.
    public static let notificationSize = 1 + 4 + 4 + 3 + 20
    /// Flood units per write() call.
    public static let unitsPerWrite = 512
    /// The handle of the first connection, the one that floods; later connections get
    /// the handles after it, and never flood.
    public static let connectionHandle: UInt16 = 0x0040
    /// The address the peer answers LE Create Connection with (random static).
    public static let address = BluetoothAddress(0xC6, 5, 4, 3, 2, 1)
    /// Flood everything until ``close()``.
    public static let endless = Int.max

    public let path: String
    private let listener: UnixSocketListener
    private let threads = DispatchGroup()
    private let floodOnAccept: Int
    private let floodOnConnect: Int
    private let floodOnDiscovery: Int
    private let floodOnSubscribe: Int
    private let server: @Sendable ([UInt8]) -> [UInt8]?
    /// `unitsPerWrite` flood units back to back, and the size of one.
    private let floodChunk: [UInt8]
    private let unitSize: Int
    private let condition = NSCondition()
    // Guarded by `condition`:
    private var descriptor: Int32 = -1
    private var answers: [UInt8] = []
    private var floodRemaining = 0
    private var floodStart: ContinuousClock.Instant?
    private var written = 0
    private var responses = 0
    private var requests = 0
    private var closed = false
    /// Advertisers still to report: (first address, how many, with a scan response each).
    private var advertisers: [(first: UInt64, count: Int, scanResponse: Bool)] = []
    private var advertisersWritten = 0
    /// Advertisers to queue when the host enables scanning (``advertiseWhenScanning(_:from:scanResponse:)``).
    private var advertisersOnScan: [(first: UInt64, count: Int, scanResponse: Bool)] = []
    private var connections = 0
    private var discoveryFlooded = false
    private var subscribeFlooded = false

    /// Listens on a fresh socket path; the host connects to `.unix(path: path)`.
    /// - Parameters:
    ///   - flood: what one unit of the flood is.
    ///   - floodOnAccept: units queued as soon as the host connects to the socket, so they
    ///     arrive among the initialisation's answers.
    ///   - floodOnConnect: units queued right behind LE Connection Complete.
    ///   - floodOnDiscovery: units queued right behind the answer to the first Read By
    ///     Group Type Request on the flooding connection, the first two in the same write,
    ///     so the flood is in the stream ahead of any later answer of the discovery.
    ///   - floodOnSubscribe: units queued right behind the answer to the first Write
    ///     Request on the flooding connection (the CCCD write of a subscription), for a
    ///     central in another process, whose subscription the test cannot see.
    ///   - server: the ATT response to one request from the central, nil for none.
    public init(flood: Flood = .notifications(handle: HeartRateATTServer.valueHandle),
                floodOnAccept: Int = 0, floodOnConnect: Int = 0, floodOnDiscovery: Int = 0, floodOnSubscribe: Int = 0,
                server: @escaping @Sendable ([UInt8]) -> [UInt8]? = HeartRateATTServer.response) {
        listener = UnixSocketListener(prefix: "attune-flood")
        path = listener.path
        self.floodOnAccept = floodOnAccept
        self.floodOnConnect = floodOnConnect
        self.floodOnDiscovery = floodOnDiscovery
        self.floodOnSubscribe = floodOnSubscribe
        self.server = server
        let unit: (Int) -> [UInt8]
        switch flood {
        case .notifications(let handle), .indications(let handle):
            let opcode: UInt8 = if case .indications = flood { 0x1D } else { 0x1B }
            unit = { i in
                var value = [UInt8](repeating: 0, count: 20)
                value[0] = UInt8(truncatingIfNeeded: i)
                return H4Packet.acl([opcode, UInt8(handle & 0xFF), UInt8(handle >> 8)] + value, handle: Self.connectionHandle)
            }
        case .hostileEvents:
            unit = { _ in
                H4Packet.completedPackets(handle: 0x0EEE)
                    + H4Packet.commandComplete(0xFC3F, [0])
                    + H4Packet.event(0x3E, [0x01])
            }
        }
        unitSize = unit(0).count
        floodChunk = (0..<Self.unitsPerWrite).flatMap(unit)
    }

    /// Accepts the host's connection on a thread of its own (a host opens its stream as
    /// it is made, possibly later, in another process) and serves it: returns at once.
    public func start() {
        threads.enter()
        Thread.detachNewThread { [self] in
            defer { threads.leave() }
            let accepted = listener.accept()
            condition.lock()
            guard accepted >= 0, !closed else {
                condition.unlock()
                if accepted >= 0 { Glibc.close(accepted) }
                return
            }
            descriptor = accepted
            floodRemaining = Self.adding(floodOnAccept, to: floodRemaining)
            condition.broadcast()
            condition.unlock()
            threads.enter()
            Thread.detachNewThread { [self] in
                writeLoop(accepted)
                threads.leave()
            }
            readLoop(accepted)
        }
    }

    /// Queues `count` more flood units (``endless``: until closed).
    public func flood(_ count: Int) {
        condition.lock()
        floodRemaining = Self.adding(count, to: floodRemaining)
        condition.broadcast()
        condition.unlock()
    }

    /// Queues LE Advertising Reports from `count` advertisers at consecutive random static
    /// addresses from `first`: each an ADV_IND followed by its SCAN_RSP (with a name), or
    /// an ADV_NONCONN_IND alone.
    public func advertise(_ count: Int, from first: UInt64, scanResponse: Bool) {
        condition.lock()
        advertisers.append((first, count, scanResponse))
        condition.broadcast()
        condition.unlock()
    }

    /// Like ``advertise(_:from:scanResponse:)``, but queued only when the host enables
    /// scanning (right behind that command's answer), for a host in another process,
    /// whose scan the test cannot see start: reports before it would test the host's
    /// initialisation, not its scan.
    public func advertiseWhenScanning(_ count: Int, from first: UInt64, scanResponse: Bool) {
        locked { advertisersOnScan.append((first, count, scanResponse)) }
    }

    /// Advertisers whose reports are written to the socket so far.
    public var advertisersReported: Int { locked { advertisersWritten } }

    /// Flood units written to the socket so far.
    public var notificationsWritten: Int { locked { written } }

    /// ATT responses queued so far: with ``notificationsWritten`` the PDUs the host gets.
    public var responsesSent: Int { locked { responses } }

    /// ATT PDUs received from the central so far.
    public var requestsReceived: Int { locked { requests } }

    /// When the first flood unit was handed to write().
    public var firstNotificationWritten: ContinuousClock.Instant? { locked { floodStart } }

    /// Ends the connection and the threads, and removes the socket.
    public func close() {
        condition.lock()
        closed = true
        let connection = descriptor
        condition.broadcast()
        condition.unlock()
        // Shutting the sockets down ends an accept, a read or a send blocked on them.
        if connection >= 0 { shutdown(connection, Int32(SHUT_RDWR)) }
        listener.close()
        threads.wait()
        if connection >= 0 { Glibc.close(connection) }
    }

    // MARK: - Threads

    private func readLoop(_ descriptor: Int32) {
        H4Packet.forEachPacket(from: descriptor, readSize: 65_536) { packet in
            switch packet.first {
            case 0x01: answerCommand(packet)
            case 0x02: answerACL(packet)
            default: break
            }
        }
    }

    private func answerCommand(_ packet: [UInt8]) {
        guard packet.count >= 4 else { return }
        let opcode = UInt16(packet[1]) | UInt16(packet[2]) << 8
        switch opcode {
        case 0x200D where packet.count >= 16:
            // LE Create Connection: Command Status, then LE Connection Complete as central,
            // with the peer asked for (Peer_Address_Type at 9, Peer_Address at 10...15).
            let peer = BluetoothAddress(rawValue: packet[10...15].reversed().reduce(0) { $0 << 8 | UInt64($1) })
            let index = locked { () -> Int in
                defer { connections += 1 }
                return connections
            }
            queue(H4Packet.commandStatus(opcode)
                  + H4Packet.connectionComplete(handle: Self.connectionHandle + UInt16(index), peer: peer, peerType: packet[9]),
                  flood: index == 0 ? floodOnConnect : 0)
        case 0x0406 where packet.count >= 6:  // Disconnect: Command Status, Disconnection Complete (local host terminated).
            let handle = UInt16(packet[4]) | UInt16(packet[5]) << 8
            if handle == Self.connectionHandle {
                // The flood came over that link: it ends with it.
                locked { floodRemaining = 0 }
            }
            queue(H4Packet.commandStatus(opcode) + H4Packet.event(0x05, [0x00, packet[4], packet[5], 0x16]))
        case 0x200C, 0x2042:
            // (Extended) LE Set Scan Enable: its answer and, when it enables, the advertisers
            // armed for the scan, behind the answer in the same wake of the writer.
            let enabling = packet.count >= 5 && packet[4] == 0x01
            condition.lock()
            answers += ControllerInitAnswers.commandComplete(answering: packet) ?? []
            if enabling {
                advertisers += advertisersOnScan
                advertisersOnScan = []
            }
            condition.broadcast()
            condition.unlock()
        default:
            if let complete = ControllerInitAnswers.commandComplete(answering: packet) { queue(complete) }
        }
    }

    /// Every ACL packet is completed at once; an ATT PDU on CID 4 is answered. Requests
    /// fit one 27-byte packet at MTU 23, so no reassembly is needed.
    private func answerACL(_ packet: [UInt8]) {
        guard packet.count >= 3 else { return }
        let handle = (UInt16(packet[1]) | UInt16(packet[2]) << 8) & 0x0FFF
        var out = H4Packet.completedPackets(handle: handle)
        var answered = false
        let isATT = packet.count >= 9 && packet[7] == 0x04 && packet[8] == 0x00
        if isATT, let response = server(Array(packet[9...])) {
            out += H4Packet.acl(response, handle: handle)
            answered = true
        }
        var flood = 0
        if isATT && packet[9] == 0x10 && handle == Self.connectionHandle {
            flood = locked { () -> Int in
                defer { discoveryFlooded = true }
                return discoveryFlooded ? 0 : floodOnDiscovery
            }
            let inline = min(flood, 2)
            out += floodChunk[0..<(inline * unitSize)]
            if flood != Self.endless { flood -= inline }
        }
        if isATT && packet[9] == 0x12 && handle == Self.connectionHandle {
            flood = locked { () -> Int in
                defer { subscribeFlooded = true }
                return subscribeFlooded ? 0 : floodOnSubscribe
            }
        }
        queue(out, request: isATT, response: answered, flood: flood)
    }

    private func queue(_ bytes: [UInt8], request: Bool = false, response: Bool = false, flood: Int = 0) {
        condition.lock()
        answers += bytes
        if request { requests += 1 }
        if response { responses += 1 }
        floodRemaining = Self.adding(flood, to: floodRemaining)
        condition.broadcast()
        condition.unlock()
    }

    private func writeLoop(_ descriptor: Int32) {
        while true {
            condition.lock()
            while !closed && answers.isEmpty && floodRemaining == 0 && advertisers.isEmpty { condition.wait() }
            if closed {
                condition.unlock()
                return
            }
            // Answers first: discovery under a flood must not wait behind all of it.
            let ok: Bool
            if !answers.isEmpty {
                let out = answers
                answers = []
                condition.unlock()
                ok = H4Packet.writeAll(descriptor, out[...])
            } else if floodRemaining == 0 {
                // Advertisers, a few hundred per write.
                let (first, count, scanResponse) = advertisers[0]
                let n = min(count, Self.unitsPerWrite)
                if n == count { advertisers.removeFirst() } else { advertisers[0] = (first + UInt64(n), count - n, scanResponse) }
                condition.unlock()
                var out: [UInt8] = []
                for raw in first..<(first + UInt64(n)) {
                    let address = BluetoothAddress(rawValue: raw)
                    if scanResponse {
                        out += H4Packet.advertisingReport(address, type: 0x00, data: [0x02, 0x01, 0x06])
                        out += H4Packet.advertisingReport(address, type: 0x04, data: [0x06, 0x09, 0x46, 0x6C, 0x6F, 0x6F, 0x64])
                    } else {
                        out += H4Packet.advertisingReport(address, type: 0x03, data: [0x02, 0x01, 0x04])
                    }
                }
                ok = H4Packet.writeAll(descriptor, out[...])
                condition.lock()
                advertisersWritten += n
                condition.unlock()
            } else {
                let n = min(floodRemaining, Self.unitsPerWrite)
                // An endless flood stays endless.
                if floodRemaining != Self.endless { floodRemaining -= n }
                if floodStart == nil { floodStart = .now }
                condition.unlock()
                ok = H4Packet.writeAll(descriptor, floodChunk[0..<(n * unitSize)])
                condition.lock()
                written += n
                condition.unlock()
            }
            if !ok { return }
        }
    }

    private func locked<T>(_ body: () -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }

    private static func adding(_ count: Int, to remaining: Int) -> Int {
        remaining > Int.max - count ? Int.max : remaining + count
    }
}
