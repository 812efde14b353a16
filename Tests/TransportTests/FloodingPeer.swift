#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HCI
import Transport

/// A controller and its connected peripheral, played by the test on the far end of a
/// UNIX socket, that floods Handle Value Notifications: it answers the userland host's
/// initialisation, connects as the central asked, serves ``HeartRateATTServer``, returns
/// Number Of Completed Packets for the host's ACL, and floods on ``flood(_:)`` (or from
/// the moment it reports the connection, with `floodOnConnect`).
///
/// Unlike ``ScriptedController`` it writes many packets per write() call: a flood of
/// hundreds of thousands of notifications one byte per call would measure the syscalls.
/// Only the writer thread sends, so a flood blocked on a full socket (the host stopped
/// reading: back-pressure) just waits there, and the reader goes on taking the host's
/// requests; their answers go out ahead of the rest of the flood.
final class FloodingPeer: @unchecked Sendable {
    /// Bytes of one notification on the wire: H4 indicator, ACL and L2CAP headers, ATT
    /// opcode and handle, 20-byte value.
    static let notificationSize = 1 + 4 + 4 + 3 + 20
    static let notificationsPerWrite = 512
    static let connectionHandle: UInt16 = 0x0040
    /// The address the peer answers LE Create Connection with (random static).
    static let address = BluetoothAddress(0xC6, 5, 4, 3, 2, 1)

    let path: String
    private let listener: Int32
    private var descriptor: Int32 = -1
    private let threads = DispatchGroup()
    private let floodOnConnect: Int
    private let floodChunk: [UInt8]
    private let condition = NSCondition()
    // Guarded by `condition`:
    private var answers: [UInt8] = []
    private var floodRemaining = 0
    private var written = 0
    private var responses = 0
    private var closed = false
    /// Advertisers still to report: (first address, how many, with a scan response each).
    private var advertisers: [(first: UInt64, count: Int, scanResponse: Bool)] = []
    private var advertisersWritten = 0

    /// Listens on a fresh socket path; the host connects to `.unix(path: path)`.
    /// - Parameters:
    ///   - floodOnConnect: notifications queued right behind LE Connection Complete.
    ///   - floodHandle: the attribute handle the flood's notifications carry.
    init(floodOnConnect: Int = 0, floodHandle: UInt16 = HeartRateATTServer.valueHandle) {
        let path = NSTemporaryDirectory() + "attune-flood-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        precondition(bound == 0 && listen(listener, 1) == 0, "cannot listen on \(path)")
        self.path = path
        self.listener = listener
        self.floodOnConnect = floodOnConnect
        var value = [UInt8](repeating: 0, count: 20)
        var chunk: [UInt8] = []
        for i in 0..<Self.notificationsPerWrite {
            value[0] = UInt8(truncatingIfNeeded: i)
            chunk += Self.acl([0x1B, UInt8(floodHandle & 0xFF), UInt8(floodHandle >> 8)] + value)
        }
        floodChunk = chunk
    }

    /// Accepts the host's connection (a manager opens its stream as it is made, so it
    /// waits in the backlog) and starts the reader and writer threads.
    func start() {
        descriptor = accept(listener, nil, nil)
        precondition(descriptor >= 0, "accept on \(path) failed")
        threads.enter()
        threads.enter()
        Thread.detachNewThread { [self] in
            readLoop()
            threads.leave()
        }
        Thread.detachNewThread { [self] in
            writeLoop()
            threads.leave()
        }
    }

    /// Queues `count` more notifications.
    func flood(_ count: Int) {
        condition.lock()
        floodRemaining += count
        condition.broadcast()
        condition.unlock()
    }

    /// Queues LE Advertising Reports from `count` advertisers at consecutive random static
    /// addresses from `first`: each an ADV_IND followed by its SCAN_RSP (with a name), or
    /// an ADV_NONCONN_IND alone.
    func advertise(_ count: Int, from first: UInt64, scanResponse: Bool) {
        condition.lock()
        advertisers.append((first, count, scanResponse))
        condition.broadcast()
        condition.unlock()
    }

    /// Advertisers whose reports are written to the socket so far.
    var advertisersReported: Int {
        condition.lock()
        defer { condition.unlock() }
        return advertisersWritten
    }

    /// One LE Advertising Report event: `type` 0x00 ADV_IND, 0x03 ADV_NONCONN_IND, 0x04 SCAN_RSP.
    static func advertisingReport(_ address: UInt64, type: UInt8, data: [UInt8]) -> [UInt8] {
        let bytes = BluetoothAddress(rawValue: address).littleEndianBytes
        return event(0x3E, [0x02, 1, type, 0x01] + bytes + [UInt8(data.count)] + data + [0xC4])
    }

    /// Notifications written to the socket so far.
    var notificationsWritten: Int {
        condition.lock()
        defer { condition.unlock() }
        return written
    }

    /// ATT responses queued so far: with ``notificationsWritten`` the PDUs the host gets.
    var responsesSent: Int {
        condition.lock()
        defer { condition.unlock() }
        return responses
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
        // Shutting the socket down ends a read or a send blocked on it.
        shutdown(descriptor, Int32(SHUT_RDWR))
        threads.wait()
        Glibc.close(descriptor)
        Glibc.close(listener)
        unlink(path)
    }

    // MARK: - Threads

    private func readLoop() {
        var decoder = H4StreamDecoder()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if n <= 0 { return }
            decoder.append(buffer[0..<n])
            while let packet = try? decoder.nextPacket() {
                switch packet.first {
                case 0x01: answerCommand(packet)
                case 0x02: answerACL(packet)
                default: break
                }
            }
        }
    }

    private func answerCommand(_ packet: [UInt8]) {
        let opcode = UInt16(packet[1]) | UInt16(packet[2]) << 8
        let returned: [UInt8]
        switch opcode {
        case 0x200D:  // LE Create Connection: Command Status, then LE Connection Complete as central.
            let handle = Self.connectionHandle
            let peer = Self.address.littleEndianBytes
            queue(Self.event(0x0F, [0x00, 1, packet[1], packet[2]])
                + Self.event(0x3E, [0x01, 0x00, UInt8(handle & 0xFF), UInt8(handle >> 8), 0x00, 0x01]
                             + peer + [0x18, 0x00, 0x00, 0x00, 0xF4, 0x01, 0x00]),
                  flood: floodOnConnect)
            return
        case 0x0406:  // Disconnect: Command Status, Disconnection Complete (local host terminated).
            queue(Self.event(0x0F, [0x00, 1, packet[1], packet[2]]) + Self.event(0x05, [0x00, packet[4], packet[5], 0x16]))
            return
        case 0x1002: returned = [0] + Array(repeating: 0, count: 64)  // no optional commands: legacy LE commands
        case 0x1003, 0x2003: returned = [0] + Array(repeating: 0, count: 8)
        case 0x2002: returned = [0, 27, 0, 8]  // 27-byte LE ACL buffers, 8 of them
        case 0x1009: returned = [0, 6, 5, 4, 3, 2, 1]
        default: returned = [0]
        }
        queue(Self.event(0x0E, [1, packet[1], packet[2]] + returned))
    }

    /// Every ACL packet is completed at once; an ATT PDU on CID 4 is answered. Requests
    /// fit one 27-byte packet at MTU 23, so no reassembly is needed.
    private func answerACL(_ packet: [UInt8]) {
        let handle = (UInt16(packet[1]) | UInt16(packet[2]) << 8) & 0x0FFF
        var out = Self.event(0x13, [1, UInt8(handle & 0xFF), UInt8(handle >> 8), 1, 0])
        var answered = false
        if packet.count >= 9, packet[7] == 0x04, packet[8] == 0x00,
           let response = HeartRateATTServer.response(to: Array(packet[9...])) {
            out += Self.acl(response)
            answered = true
        }
        queue(out, response: answered)
    }

    private func queue(_ bytes: [UInt8], response: Bool = false, flood: Int = 0) {
        condition.lock()
        answers += bytes
        if response { responses += 1 }
        floodRemaining += flood
        condition.broadcast()
        condition.unlock()
    }

    private func writeLoop() {
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
                ok = Self.writeAll(descriptor, out[...])
            } else if floodRemaining == 0 {
                // Advertisers, a few hundred per write.
                let (first, count, scanResponse) = advertisers[0]
                let n = min(count, Self.notificationsPerWrite)
                if n == count { advertisers.removeFirst() } else { advertisers[0] = (first + UInt64(n), count - n, scanResponse) }
                condition.unlock()
                var out: [UInt8] = []
                for address in first..<(first + UInt64(n)) {
                    if scanResponse {
                        out += Self.advertisingReport(address, type: 0x00, data: [0x02, 0x01, 0x06])
                        out += Self.advertisingReport(address, type: 0x04, data: [0x06, 0x09, 0x46, 0x6C, 0x6F, 0x6F, 0x64])
                    } else {
                        out += Self.advertisingReport(address, type: 0x03, data: [0x02, 0x01, 0x04])
                    }
                }
                ok = Self.writeAll(descriptor, out[...])
                condition.lock()
                advertisersWritten += n
                condition.unlock()
            } else {
                let n = min(floodRemaining, Self.notificationsPerWrite)
                floodRemaining -= n
                condition.unlock()
                ok = Self.writeAll(descriptor, floodChunk[0..<(n * Self.notificationSize)])
                condition.lock()
                written += n
                condition.unlock()
            }
            if !ok { return }
        }
    }

    /// Writes all of `bytes`, blocking while the socket is full.
    private static func writeAll(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0 && errno == EINTR { continue }
                if sent <= 0 { return false }
                offset += sent
            }
            return true
        }
    }

    // MARK: - Packets

    static func event(_ code: UInt8, _ parameters: [UInt8]) -> [UInt8] {
        [0x04, code, UInt8(parameters.count)] + parameters
    }

    /// One ACL packet (first fragment, complete L2CAP frame) on the ATT channel.
    static func acl(_ pdu: [UInt8]) -> [UInt8] {
        let l2cap = UInt16(pdu.count)
        let length = l2cap + 4
        let handle = connectionHandle | 0x2000
        return [0x02, UInt8(handle & 0xFF), UInt8(handle >> 8), UInt8(length & 0xFF), UInt8(length >> 8),
                UInt8(l2cap & 0xFF), UInt8(l2cap >> 8), 0x04, 0x00] + pdu
    }
}
