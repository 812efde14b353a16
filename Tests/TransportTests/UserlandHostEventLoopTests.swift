#if canImport(Glibc)
import Glibc
#endif
import Foundation
import HCI
import Testing
import Transport

/// The userland host as an edge on the shared event loop: no thread of its own per host,
/// and an event buffer that stays bounded however fast the controller reports.
@Suite("Userland host on the shared event loop", .serialized)
struct UserlandHostEventLoopTests {
    /// The threads of this process, from the kernel's own list.
    static func threadCount() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count
    }

    /// A command timeout far above any machine's load: these tests are about memory and
    /// order, not time.
    static let configuration = HostConfiguration(randomAddress: BluetoothAddress(0xC0, 0, 0, 0, 0, 1),
                                                 commandTimeout: .seconds(120))

    @Test("starting hosts adds no threads: reading, writing and deadlines run on the shared loop")
    func noThreadPerHost() async throws {
        let (listener, endpoint, path) = try H4StreamEdgeTests.unixListener()
        defer { Glibc.close(listener); unlink(path) }
        let hostCount = 10
        // One controller thread for every host, started before the first count.
        let controllers = LockedBox<[ScriptedController]>([])
        let script = Thread {
            for _ in 0...hostCount {
                let controller = ScriptedController(descriptor: accept(listener, nil, nil))
                controllers.value.withLock { $0.append(controller) }
                controller.answerCommands(count: 9)
            }
        }
        script.start()
        // The first host starts the shared loop's thread, if no test did yet.
        let first = try UserlandHost(endpoint: endpoint, configuration: Self.configuration)
        _ = try await first.start()
        let before = try Self.threadCount()
        var hosts = [first]
        for _ in 0..<hostCount {
            let host = try UserlandHost(endpoint: endpoint, configuration: Self.configuration)
            _ = try await host.start()
            hosts.append(host)
        }
        let after = try Self.threadCount()
        // A reader and a writer thread per host made this 2 × hostCount. The slack is
        // for threads other tests in this process may start meanwhile; it is below one
        // thread per host.
        #expect(after - before < hostCount, "\(before) threads before, \(after) after starting \(hostCount) hosts")
        // Every host is alive and answers on the loop.
        #expect(hosts.allSatisfy { $0.stopReason == nil })
        for host in hosts { host.close() }
        for host in hosts { for await _ in host.events {} }
        for controller in controllers.value.withLock({ $0 }) { controller.close() }
    }

    /// An LE Advertising Report event (legacy, one report) from a distinct address.
    static func advertisingReport(_ index: Int) -> [UInt8] {
        let body: [UInt8] = [0x02, 0x01, 0x00, 0x01,
                             UInt8(index & 0xFF), UInt8((index >> 8) & 0xFF), UInt8((index >> 16) & 0xFF), 0, 0, 0xC0,
                             3, 0x02, 0x01, 0x06, 0xC4]
        return [0x04, 0x3E, UInt8(body.count)] + body
    }

    @Test("200,000 advertising reports nobody reads: the buffer holds its bound, counts the rest, and a connection still arrives")
    func advertisingFloodIsBounded() async throws {
        let (listener, endpoint, path) = try H4StreamEdgeTests.unixListener()
        defer { Glibc.close(listener); unlink(path) }
        let reportCount = 200_000
        let host = try UserlandHost(endpoint: endpoint, configuration: Self.configuration)
        let controllerBox = LockedBox<ScriptedController?>(nil)
        let script = Thread {
            let controller = ScriptedController(descriptor: accept(listener, nil, nil))
            controllerBox.value.withLock { $0 = controller }
            controller.answerCommands(count: 9)
            // The flood in large writes, then a connection, then the answer to the
            // test's command: the host handles them in stream order.
            var flood: [UInt8] = []
            for index in 0..<reportCount {
                flood += Self.advertisingReport(index)
                if flood.count > 60_000 || index == reportCount - 1 {
                    Self.sendAll(flood, to: controller.descriptor)
                    flood.removeAll(keepingCapacity: true)
                }
            }
            let connection: [UInt8] = [0x01, 0x00, 0x07, 0x00, 0x00, 0x01, 1, 2, 3, 4, 5, 0xF0, 0x18, 0, 0, 0, 0xF4, 1, 0]
            controller.write([0x04, 0x3E, UInt8(connection.count)] + connection)
            controller.answerCommands(count: 1)
        }
        script.start()
        _ = try await host.start()
        // Completions do not go through `events`: when this returns, everything the
        // controller sent before its answer has been handled, and nobody read an event.
        _ = try await host.perform(.rawCommand(opcode: HCIOpcode(rawValue: 0x1001), parameters: []))
        let capacity = UserlandHost.eventBufferCapacity
        #expect(host.queuedEventCount == capacity)
        #expect(host.droppedAdvertisingReportCount == reportCount - capacity)
        #expect(host.droppedEventCount == reportCount - capacity)

        // The consumer arrives late: the reports that fit, then the connection.
        var reports = 0
        var connected: ConnectionInfo?
        for await event in host.events {
            if case .advertisingReport = event { reports += 1 }
            if case .connected(let info) = event {
                connected = info
                break
            }
        }
        #expect(reports == capacity)
        #expect(connected?.handle == 7)
        #expect(host.queuedEventCount == 0)
        host.close()
        controllerBox.value.withLock { $0 }?.close()
    }

    /// Writes all of `bytes` in as few calls as the socket allows.
    static func sendAll(_ bytes: [UInt8], to descriptor: Int32) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { return }
            offset += sent
        }
    }

    @Test("a full ATT inbox pauses reading at exactly its capacity, and taking from it resumes reading")
    func fullInboxPausesReading() async throws {
        let (listener, endpoint, path) = try H4StreamEdgeTests.unixListener()
        defer { Glibc.close(listener); unlink(path) }
        let pduCount = 3000
        let host = try UserlandHost(endpoint: endpoint, configuration: Self.configuration, routesATTToChannels: true)
        let controllerBox = LockedBox<ScriptedController?>(nil)
        let script = Thread {
            let controller = ScriptedController(descriptor: accept(listener, nil, nil))
            controllerBox.value.withLock { $0 = controller }
            controller.answerCommands(count: 9)
            let connection: [UInt8] = [0x01, 0x00, 0x01, 0x00, 0x00, 0x01, 1, 2, 3, 4, 5, 0xF0, 0x18, 0, 0, 0, 0xF4, 1, 0]
            controller.write([0x04, 0x3E, UInt8(connection.count)] + connection)
            // Handle Value Notifications numbered 0..<pduCount, one ACL packet each, in one write.
            var flood: [UInt8] = []
            for index in 0..<pduCount {
                flood += [0x02, 0x01, 0x20, 0x09, 0x00, 0x05, 0x00, 0x04, 0x00,
                          0x1B, 0x03, 0x00, UInt8(index & 0xFF), UInt8(index >> 8)]
            }
            Self.sendAll(flood, to: controller.descriptor)
            controller.answerCommands(count: 1)
        }
        script.start()
        _ = try await host.start()
        for await event in host.events {
            if case .connected = event { break }
        }
        let channel = try #require(host.attChannel(for: 1))
        // The answer to this command comes after the whole flood: it completes only if
        // reading resumes once the inbox has room.
        let command = Task { try await host.perform(.rawCommand(opcode: HCIOpcode(rawValue: 0x1001), parameters: [])) }
        let deadline = ContinuousClock.now + .seconds(10)
        while channel.inbox.hasRoom && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(1)) }
        #expect(!channel.inbox.hasRoom, "the inbox never filled")
        var received: [Int] = []
        var largestBatch = 0
        while received.count < pduCount {
            let batch = await channel.receive()
            if batch.isEmpty { break }
            largestBatch = max(largestBatch, batch.count)
            for event in batch {
                guard case .received(let pdu) = event, pdu.count == 5 else {
                    Issue.record("unexpected \(event)")
                    continue
                }
                received.append(Int(pdu[3]) | Int(pdu[4]) << 8)
            }
        }
        // Packets already read but past the capacity wait as bytes in the host, not in the inbox.
        #expect(largestBatch == UserlandATTChannel.inboxCapacity)
        #expect(received == Array(0..<pduCount))
        _ = try await command.value
        host.close()
        controllerBox.value.withLock { $0 }?.close()
    }
}
