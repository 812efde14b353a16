#if canImport(Glibc)
import Glibc
#endif
import ControllerTestSupport
import Foundation
import HCI
import InteropTestSupport
import Testing
import Transport

/// The userland host's I/O edge over real streams (UNIX socket, pty) against a scripted
/// controller: partial reads, and a stream cut in the middle of a packet.
@Suite("H4 stream edge: partial reads and a stream cut mid-packet", .serialized)
struct H4StreamEdgeTests {
    /// A listening UNIX socket at a fresh path, and the endpoint that reaches it.
    static func unixListener() -> (listener: UnixSocketListener, endpoint: H4Endpoint) {
        let listener = UnixSocketListener(prefix: "attune-h4")
        return (listener, .unix(path: listener.path))
    }

    /// A pty pair: the controller keeps the master, the host opens the slave as serial.
    static func pty() throws -> (master: Int32, endpoint: H4Endpoint) {
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        try #require(master >= 0)
        // unlockpt and ptsname by hand (Glibc's module does not export them):
        // TIOCSPTLCK with 0 unlocks the slave, TIOCGPTN reads its number.
        var unlock: Int32 = 0
        var number: UInt32 = 0
        try #require(ioctl(master, 0x4004_5431, &unlock) == 0 && ioctl(master, 0x8004_5430, &number) == 0)
        // The master side must not translate bytes either.
        var settings = termios()
        tcgetattr(master, &settings)
        cfmakeraw(&settings)
        tcsetattr(master, TCSANOW, &settings)
        let name = "/dev/pts/\(number)"
        return (master, .serial(path: name, baudRate: 115_200))
    }

    /// Waits until the host has read all the controller wrote to the pty: a pty drops
    /// unread input when its master hangs up, so the cut must come after. No event says
    /// so; poll(2) on a second descriptor of the slave does, since it moves the pty's
    /// pending input into the line discipline before it answers.
    static func hostReadAll(of slavePath: String) async throws {
        let watcher = open(slavePath, O_RDONLY | O_NOCTTY | O_NONBLOCK)
        try #require(watcher >= 0)
        defer { close(watcher) }
        try await within("the host read the pty's last bytes") {
            while true {
                var entry = pollfd(fd: watcher, events: Int16(POLLIN), revents: 0)
                if poll(&entry, 1, 0) == 0 { return }
                try await Task.sleep(for: .milliseconds(1))
            }
        }
    }

    static func run(endpoint: H4Endpoint, controllerDescriptor: @escaping @Sendable () -> Int32,
                    beforeCut: () async throws -> Void = {}) async throws {
        let host = try UserlandHost(endpoint: endpoint,
                                    configuration: HostConfiguration(randomAddress: BluetoothAddress(0xC0, 0, 0, 0, 0, 1)))
        let collected = EventRecord<HostEvent>()
        let collector = Task {
            for await event in host.events { collected.append(event) }
            collected.finish()
        }
        let controllerBox = LockedBox<ScriptedController?>(nil)
        let script = Thread {
            let controller = ScriptedController(descriptor: controllerDescriptor())
            controllerBox.value.withLock { $0 = controller }
            controller.answerCommands(count: 9)
        }
        script.start()
        let info = try await host.start()
        #expect(info.aclDataPacketLength == 27 && info.totalACLDataPackets == 8)
        let controller = try #require(controllerBox.value.withLock { $0 })

        // Two connections come up, byte by byte.
        for handle: UInt8 in [0x01, 0x02] {
            let body: [UInt8] = [0x01, 0x00, handle, 0x00, 0x00, 0x01, 1, 2, 3, 4, 5, 0xF0, 0x18, 0, 0, 0, 0xF4, 1, 0]
            controller.write([0x04, 0x3E, UInt8(body.count)] + body)
        }
        // An ATT PDU on the first, and hostile bits: ACL for an unknown handle.
        controller.write([0x02, 0x01, 0x20, 0x07, 0x00, 0x03, 0x00, 0x04, 0x00, 0x02, 0x17, 0x00])
        controller.write([0x02, 0x0E, 0x20, 0x05, 0x00, 0x01, 0x00, 0x04, 0x00, 0x0A])
        try await collected.waitFor("the ATT PDU on handle 1") { $0 == .attributeData(handle: 1, pdu: [0x02, 0x17, 0x00]) }
        try await collected.waitFor("a warning of ACL data for unknown handle 0x0E") { $0 == .warning(.aclForUnknownHandle(0x0E)) }
        #expect(host.connectionHandles == [1, 2])

        // Cut the stream four bytes into a Command Complete.
        controller.write([0x04, 0x0E, 0x09, 0x01])
        try await beforeCut()
        controller.close()
        try await within("the host ends once its stream is cut") { await collector.value }
        let reason = try #require(host.stopReason)
        guard case .transportClosed(let text) = reason else {
            Issue.record("stopped for \(reason)")
            return
        }
        #expect(text.contains("in the middle of a packet (4 bytes of it received)"), "\(text)")
        let ended = collected.events.compactMap {
            if case .connectionEnded(let handle, let error) = $0 { return (handle, error) } else { return nil }
        }
        #expect(ended.map(\.0) == [1, 2])
        #expect(ended.allSatisfy { $0.1 == reason })
        await #expect(throws: reason) { try await host.perform(.stopScanning) }
    }

    @Test("unix: stream")
    func unixStream() async throws {
        let (listener, endpoint) = Self.unixListener()
        defer { listener.close() }
        try await Self.run(endpoint: endpoint) { listener.accept() }
    }

    @Test("serial: pty in raw mode")
    func serialPTY() async throws {
        let (master, endpoint) = try Self.pty()
        guard case .serial(let slavePath, _) = endpoint else { throw WaitFailed("a pty is a serial endpoint") }
        try await Self.run(endpoint: endpoint, controllerDescriptor: { master },
                           beforeCut: { try await Self.hostReadAll(of: slavePath) })
    }

    @Test("a command timeout fires even while the controller floods other events")
    func timeoutUnderTraffic() async throws {
        let (listener, endpoint) = Self.unixListener()
        defer { listener.close() }
        let host = try UserlandHost(endpoint: endpoint, configuration: HostConfiguration(
            randomAddress: BluetoothAddress(0xC0, 0, 0, 0, 0, 1), commandTimeout: .milliseconds(1500)))
        let floodEnds = LockedBox(false)
        let script = Thread {
            let controller = ScriptedController(descriptor: listener.accept())
            controller.answerCommands(count: 9)
            // Vendor events without a pause until the test has its answer; the next
            // command is never answered.
            let burst = Array([[UInt8]](repeating: [0x04, 0xFF, 0x01, 0x00], count: 64).joined())
            while !floodEnds.value.withLock({ $0 }) {
                let sent = burst.withUnsafeBytes { Glibc.send(controller.descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if sent < 0 { break }
            }
            controller.close()
        }
        script.start()
        defer { floodEnds.value.withLock { $0 = true } }
        _ = try await host.start()
        // The flood lasts until the command has failed: a timer the flood starved would
        // never fire, and the wait would reach the hang guard. No wall-clock bound needed.
        let outcome = try await within("the command timeout, in the middle of the flood") { () -> HostError? in
            do {
                _ = try await host.perform(.rawCommand(opcode: HCIOpcode(rawValue: 0x1001), parameters: []))
                return nil
            } catch {
                return error as? HostError
            }
        }
        #expect(outcome == .commandTimeout(HCIOpcode(rawValue: 0x1001)))
    }

    @Test("endpoint strings parse, and bad ones say why")
    func endpoints() throws {
        #expect(try H4Endpoint(parsing: "tcp:127.0.0.1:9100") == .tcp(host: "127.0.0.1", port: 9100))
        #expect(try H4Endpoint(parsing: "tcp:[::1]:9100") == .tcp(host: "::1", port: 9100))
        #expect(try H4Endpoint(parsing: "unix:/tmp/x.sock") == .unix(path: "/tmp/x.sock"))
        #expect(try H4Endpoint(parsing: "serial:/dev/ttyUSB0@1000000") == .serial(path: "/dev/ttyUSB0", baudRate: 1_000_000))
        #expect(try H4Endpoint(parsing: "user:hci1") == .userChannel(device: 1))
        for bad in ["tcp:host", "tcp:host:0", "bogus:x", "user:eth0", "serial:", "nothing"] {
            #expect(throws: H4Endpoint.ParseError.self) { try H4Endpoint(parsing: bad) }
        }
    }

    @Test("the H4 decoder frames packets split at every byte, and rejects unknown indicators")
    func decoderSplits() throws {
        let packets: [[UInt8]] = [[0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00],
                                  [0x02, 0x01, 0x20, 0x03, 0x00, 0xAA, 0xBB, 0xCC],
                                  [0x01, 0x03, 0x0C, 0x00]]
        let stream = packets.flatMap { $0 }
        for split in 0...stream.count {
            var decoder = H4StreamDecoder()
            var out: [[UInt8]] = []
            decoder.append(stream[0..<split])
            while let packet = try decoder.nextPacket() { out.append(packet) }
            decoder.append(stream[split...])
            while let packet = try decoder.nextPacket() { out.append(packet) }
            #expect(out == packets)
        }
        var decoder = H4StreamDecoder()
        decoder.append([0x09, 0x00])
        #expect(throws: H4StreamDecoder.Failure.unknownPacketIndicator(0x09, offset: 0)) { try decoder.nextPacket() }
    }
}
