import ControllerTestSupport
import Foundation
import HCI
import struct HCI.BluetoothAddress
import InteropTestSupport
import Testing
import Transport

/// The interop matrix against Bumble: our userland host over H4/TCP on an emulated
/// controller, Bumble's own host and GATT server or client on another, one virtual link.
///
/// Cells that need the GATT client and server engines join this suite when those land;
/// until then the ATT cells here use raw PDUs on our host's ATT fixed channel.
@Suite(.serialized, .enabled(if: InteropLab.pythonAvailable, "python3 is missing: the Bumble interop matrix cannot run"))
struct BumbleInteropTests {
    /// Starts a lab and our host on its first controller.
    static func start(role: String = "peripheral", devices: Int = 1, hostControllers: Int = 1,
                      commandSet: HostConfiguration.CommandSet = .automatic,
                      name: String = #function) async throws -> (InteropLab, HostUnderTest, ControllerInfo) {
        let lab = try await InteropLab.start(role: role, hostControllers: hostControllers, devices: devices, name: name)
        let ours = try HostUnderTest(port: lab.port(0), commandSet: commandSet, captureDirectory: lab.captureDirectory)
        let info = try await ours.host.start()
        return (lab, ours, info)
    }

    static func peerAddress(_ lab: InteropLab, _ index: Int = 0) throws -> BluetoothAddress {
        let text = try #require(lab.ready.device(index, "address"))
        return try #require(BluetoothAddress(text))
    }

    /// Connects our central to Bumble device `index` and returns the connection.
    static func connect(_ ours: HostUnderTest, _ lab: InteropLab, device index: Int = 0) async throws -> ConnectionInfo {
        let completion = try await ours.host.perform(.connect(
            peer: try peerAddress(lab, index), peerAddressType: 0x01, parameters: ConnectionParameters(),
            timeout: hangGuard))
        guard case .connected(let info) = completion else {
            throw InteropLab.Failure(description: "connect completed with \(completion)")
        }
        return info
    }

    @Test("init sequence: reset, features, buffer sizes, random address")
    func initialization() async throws {
        let (lab, ours, info) = try await Self.start()
        defer { lab.stop() }
        #expect(info.aclDataPacketLength > 0)
        #expect(info.totalACLDataPackets > 0)
        #expect(info.usesExtendedCommands, "Bumble's controller reports LE Extended Advertising")
        #expect(info.randomAddress == HostUnderTest.randomAddress(0))
        #expect(ours.host.stopReason == nil)
    }

    @Test("scan sees the Bumble advertiser with its name and random address type",
          arguments: [HostConfiguration.CommandSet.automatic, .legacy])
    func scan(commandSet: HostConfiguration.CommandSet) async throws {
        let (lab, ours, _) = try await Self.start(commandSet: commandSet)
        defer { lab.stop() }
        let expected = try Self.peerAddress(lab)
        _ = try await ours.host.perform(.startScanning(ScanConfiguration()))
        let report = try await ours.waitFor("advertising report with a name") { event -> AdvertisingReport? in
            if case .advertisingReport(let report) = event, report.address == expected,
               completeLocalName(in: report.data) != nil { return report }
            return nil
        }
        _ = try await ours.host.perform(.stopScanning)
        #expect(completeLocalName(in: report.data) == lab.ready.device(0, "name"))
        #expect(report.addressType == 0x01)
        #expect(report.isConnectable || report.isScanResponse)
        try await ours.verifyCapture()
    }

    @Test("connect, exchange MTU and read through raw ATT PDUs, disconnect from our side",
          arguments: [HostConfiguration.CommandSet.automatic, .legacy])
    func connectExchangeMTUAndRead(commandSet: HostConfiguration.CommandSet) async throws {
        let (lab, ours, info) = try await Self.start(commandSet: commandSet)
        #expect(info.usesExtendedCommands == (commandSet == .automatic))
        defer { lab.stop() }
        let connection = try await Self.connect(ours, lab)
        #expect(connection.role == .central)
        #expect(connection.peerAddressType == .random)
        #expect(connection.ownAddressType == .random)
        try await lab.waitFor("connected", timeout: hangGuard)

        let longRead = try #require(lab.ready.handle("long_read"))
        // At the default MTU of 23, a Read Response carries MTU − 1 = 22 bytes.
        let first = try await ours.exchangeATT([0x0A, UInt8(longRead & 0xFF), UInt8(longRead >> 8)], on: connection.handle)
        #expect(first.first == 0x0B)
        #expect(Array(first.dropFirst()) == Self.longReadValue.prefix(22).map { $0 })

        // Exchange MTU: we offer 247; Bumble's server answers with its own Rx MTU.
        let mtuResponse = try await ours.exchangeATT([0x02, 0xF7, 0x00], on: connection.handle)
        #expect(mtuResponse.count == 3 && mtuResponse[0] == 0x03)
        let serverMTU = Int(mtuResponse[1]) | Int(mtuResponse[2]) << 8
        let mtu = min(247, serverMTU)
        #expect(mtu >= 23)

        // Now the Read Response is MTU − 1 bytes long, which needs several ACL fragments.
        let second = try await ours.exchangeATT([0x0A, UInt8(longRead & 0xFF), UInt8(longRead >> 8)], on: connection.handle)
        #expect(second.first == 0x0B)
        #expect(Array(second.dropFirst()) == Array(Self.longReadValue.prefix(mtu - 1)))

        // Read Blob for the rest of the 300 bytes, at offset MTU − 1.
        let offset = UInt16(mtu - 1)
        let blob = try await ours.exchangeATT([0x0C, UInt8(longRead & 0xFF), UInt8(longRead >> 8),
                                               UInt8(offset & 0xFF), UInt8(offset >> 8)], on: connection.handle)
        #expect(blob.first == 0x0D)
        #expect(Array(blob.dropFirst()) == Array(Self.longReadValue[Int(offset)..<min(300, Int(offset) + mtu - 1)]))

        let completion = try await ours.host.perform(.disconnect(handle: connection.handle, reason: 0x13))
        guard case .disconnected = completion else { Issue.record("disconnect completed with \(completion)"); return }
        let bumbleSide = try await lab.waitFor("disconnected", timeout: hangGuard)
        #expect(bumbleSide.int("reason") == 0x13)
        #expect(ours.host.connectionHandles.isEmpty)

        // The session capture, as our decoder and tshark read it: same PDUs, same directions.
        await ours.finish()
        let capture = try SessionCapture(path: ours.capturePath)
        #expect(capture.firstRecordIsSentCommand, "the first record is our HCI_Reset, sent")
        let expected: [(Bool, UInt8)] = [(true, 0x0A), (false, 0x0B), (true, 0x02), (false, 0x03),
                                         (true, 0x0A), (false, 0x0B), (true, 0x0C), (false, 0x0D)]
        #expect(capture.attune.map { "\($0.sent):\($0.opcode)" } == expected.map { "\($0.0):\($0.1)" })
        if let tshark = capture.tshark {
            #expect(tshark.map { "\($0.sent):\($0.opcode)" } == capture.attune.map { "\($0.sent):\($0.opcode)" })
        }
    }

    @Test("Read By Type answered by value, and a callback's ATT error arrives with its code")
    func readByTypeAndCallbackError() async throws {
        let (lab, ours, _) = try await Self.start()
        defer { lab.stop() }
        let connection = try await Self.connect(ours, lab)
        // Read By Type Request over the whole range for the 128-bit UUID, little-endian.
        let uuid: [UInt8] = Array(Self.uuidBytes("7a7e0004-5d4c-4f8e-9a64-0c3f1e2b6a10").reversed())
        let response = try await ours.exchangeATT([0x08, 0x01, 0x00, 0xFF, 0xFF] + uuid, on: connection.handle)
        let byUUID = try #require(lab.ready.handle("by_uuid"))
        #expect(response.first == 0x09)
        #expect(Array(response.dropFirst()) == [UInt8(2 + 14), UInt8(byUUID & 0xFF), UInt8(byUUID >> 8)] + Array("attune-by-uuid".utf8))

        let errorHandle = try #require(lab.ready.handle("error"))
        let error = try await ours.exchangeATT([0x0A, UInt8(errorHandle & 0xFF), UInt8(errorHandle >> 8)], on: connection.handle)
        #expect(error == [0x01, 0x0A, UInt8(errorHandle & 0xFF), UInt8(errorHandle >> 8), 0x8E])
        try await ours.verifyCapture()
    }

    @Test("disconnect from the Bumble side reports its reason")
    func disconnectFromPeer() async throws {
        let (lab, ours, _) = try await Self.start()
        defer { lab.stop() }
        let connection = try await Self.connect(ours, lab)
        try await lab.waitFor("connected", timeout: hangGuard)
        lab.send("disconnect 0x13")
        let reason = try await ours.waitFor("disconnection") { event -> HCIStatus? in
            if case .disconnected(connection.handle, let reason) = event { return reason }
            return nil
        }
        #expect(reason == HCIStatus.remoteUserTerminatedConnection)
        #expect(ours.host.connectionHandles.isEmpty)
        try await ours.verifyCapture()
    }

    @Test("a Security Request from the Bumble peripheral gets Pairing Failed, Pairing Not Supported")
    func securityRequestRefused() async throws {
        let (lab, ours, _) = try await Self.start()
        defer { lab.stop() }
        let connection = try await Self.connect(ours, lab)
        try await lab.waitFor("connected", timeout: hangGuard)
        let result = try await lab.run("pair", timeout: hangGuard)
        #expect(result.bool("paired") == false)
        #expect(result.int("reason") == 0x05, "Pairing Failed reason Pairing Not Supported: \(result)")
        _ = try await ours.waitFor("pairing refusal") { event -> Bool? in
            if case .pairingRefused(connection.handle) = event { return true }
            return nil
        }
        try await ours.verifyCapture()
    }

    @Test("our peripheral: Bumble central connects to our advertising and its Pairing Request is refused",
          arguments: [HostConfiguration.CommandSet.automatic, .legacy])
    func pairingRequestRefused(commandSet: HostConfiguration.CommandSet) async throws {
        let (lab, ours, _) = try await Self.start(role: "central", commandSet: commandSet)
        defer { lab.stop() }
        let name = Array("AttuneHost".utf8)
        _ = try await ours.host.perform(.startAdvertising(AdvertisingConfiguration(
            data: [0x02, 0x01, 0x06, UInt8(name.count + 1), 0x09] + name)))
        let connect = try await lab.run("connect \(HostUnderTest.randomAddress(0)) random", timeout: hangGuard)
        #expect(connect.bool("ok") == true, "\(connect)")
        let connection = try await ours.waitFor("peripheral connection") { event -> ConnectionInfo? in
            if case .connected(let info) = event { return info }
            return nil
        }
        #expect(connection.role == .peripheral)
        #expect(connection.peerAddressType == .random)
        let result = try await lab.run("pair", timeout: hangGuard)
        #expect(result.bool("paired") == false)
        #expect(result.int("reason") == 0x05, "Pairing Failed reason Pairing Not Supported: \(result)")
        _ = try await ours.waitFor("pairing refusal") { event -> Bool? in
            if case .pairingRefused(connection.handle) = event { return true }
            return nil
        }
        // Bumble's client exchanges MTU with our ATT channel too; the raw PDU reaches us.
        lab.send("exchange-mtu 100")
        let pdu = try await ours.attPDU(on: connection.handle, after: 0)
        #expect(pdu == [0x02, 100, 0])
        // Answer it by hand (no GATT server yet): Server Rx MTU 23, so 23 is agreed.
        try await ours.host.sendATT([0x03, 23, 0], on: connection.handle)
        let agreed = try await lab.waitFor("result", timeout: hangGuard) { $0.string("command") == "exchange-mtu" }
        #expect(agreed.int("mtu") == 23, "\(agreed)")
        try await ours.verifyCapture()
    }

    @Test("L2CAP signaling: a parameter update within limits is accepted and applied, one outside is rejected")
    func connectionParameterUpdate() async throws {
        let (lab, ours, _) = try await Self.start()
        defer { lab.stop() }
        let connection = try await Self.connect(ours, lab)
        try await lab.waitFor("connected", timeout: hangGuard)
        let accepted = try await lab.run("update-params 30 50 0 4000", timeout: hangGuard)
        #expect(accepted.bool("accepted") == true, "\(accepted)")
        let answered = try await ours.waitFor("update request") { event -> Bool? in
            if case .connectionParameterUpdateRequested(connection.handle, _, let ok) = event { return ok }
            return nil
        }
        #expect(answered)
        _ = try await ours.waitFor("connection update complete") { event -> LEConnectionUpdateComplete? in
            if case .connectionParametersUpdated(let update) = event, update.handle == connection.handle { return update }
            return nil
        }
        // A supervision timeout of 100 ms is not above (1 + 0) × 50 ms × 2: reject.
        let rejected = try await lab.run("update-params 30 50 0 100", timeout: hangGuard)
        #expect(rejected.bool("accepted") == false, "\(rejected)")
        let secondAnswer = try await ours.waitFor("second update request", skipping: 1) { event -> Bool? in
            if case .connectionParameterUpdateRequested(connection.handle, _, let ok) = event { return ok }
            return nil
        }
        #expect(secondAnswer == false)
        try await ours.verifyCapture()
    }

    @Test("L2CAP signaling: an LE credit-based connection request is refused politely")
    func creditBasedConnectionRefused() async throws {
        let (lab, ours, _) = try await Self.start()
        defer { lab.stop() }
        let connection = try await Self.connect(ours, lab)
        try await lab.waitFor("connected", timeout: hangGuard)
        let result = try await lab.run("open-coc 0x0080", timeout: hangGuard)
        #expect(result.bool("opened") == false, "\(result)")
        let spsm = try await ours.waitFor("CoC refusal") { event -> UInt16? in
            if case .creditBasedConnectionRefused(connection.handle, let spsm) = event { return spsm }
            return nil
        }
        #expect(spsm == 0x0080)
        #expect(ours.host.connectionHandles == [connection.handle], "the link stays up")
        try await ours.verifyCapture()
    }

    @Test("connect times out against an address nobody advertises; the host stays usable")
    func connectTimeout() async throws {
        let (lab, ours, _) = try await Self.start()
        defer { lab.stop() }
        let nobody = BluetoothAddress(0xF0, 0x00, 0x00, 0x00, 0x00, 0x99)
        let started = ContinuousClock.now
        await #expect(throws: HostError.connectionTimedOut) {
            try await ours.host.perform(.connect(peer: nobody, peerAddressType: 1,
                                                 parameters: ConnectionParameters(), timeout: .milliseconds(300)))
        }
        // 300 ms, then at most the grace period Bumble's controller needs (it never
        // reports the cancelled attempt), plus slack.
        #expect(ContinuousClock.now - started < .seconds(3))
        // Scanning still works: the host did not stop.
        _ = try await ours.host.perform(.startScanning(ScanConfiguration()))
        _ = try await ours.host.perform(.stopScanning)
        #expect(ours.host.stopReason == nil)
    }

    @Test("a pending connect can be cancelled")
    func connectCancel() async throws {
        let (lab, ours, _) = try await Self.start()
        defer { lab.stop() }
        let nobody = BluetoothAddress(0xF0, 0x00, 0x00, 0x00, 0x00, 0x99)
        let host = ours.host
        // Started at once, on this task, up to its first wait: the connect is queued on
        // the host before the cancel below, whatever the scheduler does next.
        let attempt = Task.immediate { try await host.perform(.connect(peer: nobody, peerAddressType: 1,
                                                                       parameters: ConnectionParameters(), timeout: hangGuard)) }
        _ = try await host.perform(.cancelConnect)
        let outcome = await attempt.result
        #expect(throws: HostError.connectionCancelled) { try outcome.get() }
        #expect(host.stopReason == nil)
    }

    @Test("two connections at once; one ends, the other keeps working")
    func twoConnections() async throws {
        let (lab, ours, _) = try await Self.start(devices: 2)
        defer { lab.stop() }
        let first = try await Self.connect(ours, lab, device: 0)
        let second = try await Self.connect(ours, lab, device: 1)
        #expect(first.handle != second.handle)
        for connection in [first, second] {
            let response = try await ours.exchangeATT([0x02, 0xF7, 0x00], on: connection.handle)
            #expect(response.first == 0x03)
        }
        _ = try await ours.host.perform(.disconnect(handle: first.handle, reason: 0x13))
        let longRead = try #require(lab.ready.handle("long_read", device: 1))
        let read = try await ours.exchangeATT([0x0A, UInt8(longRead & 0xFF), UInt8(longRead >> 8)], on: second.handle)
        #expect(read.first == 0x0B)
        #expect(ours.host.connectionHandles == [second.handle])
        try await ours.verifyCapture()
    }

    @Test("ATT channel per connection: PDUs through UserlandATTChannel, write-without-response burst under flow control, close")
    func attChannels() async throws {
        let lab = try await InteropLab.start(role: "peripheral", devices: 2)
        defer { lab.stop() }
        let host = try UserlandHost(endpoint: .tcp(host: "127.0.0.1", port: UInt16(lab.port(0))),
                                    configuration: HostConfiguration(randomAddress: HostUnderTest.randomAddress(0)),
                                    routesATTToChannels: true)
        defer { host.close() }
        _ = try await host.start()
        var channels: [UserlandATTChannel] = []
        for index in 0..<2 {
            guard case .connected(let info) = try await host.perform(.connect(
                peer: try Self.peerAddress(lab, index), peerAddressType: 1, parameters: ConnectionParameters(),
                timeout: hangGuard)) else { throw InteropLab.Failure(description: "no connection") }
            channels.append(try #require(host.attChannel(for: info.handle)))
        }
        func next(_ iterator: inout UserlandATTChannel.Events.AsyncIterator) async -> UserlandATTChannel.Event? {
            await iterator.next()
        }
        var first = channels[0].events.makeAsyncIterator()
        var second = channels[1].events.makeAsyncIterator()
        channels[0].send([0x02, 0xF7, 0x00])
        channels[1].send([0x02, 0xF7, 0x00])
        guard case .received(let mtu0)? = await next(&first), case .received(let mtu1)? = await next(&second) else {
            Issue.record("no MTU responses")
            return
        }
        #expect(mtu0.first == 0x03 && mtu1.first == 0x03)

        // 100 Write Commands of 200 bytes each, pacing on sendReady, then a read as barrier:
        // the value read back is the last write, so nothing was lost or reordered.
        let handle = try #require(lab.ready.handle("long_write"))
        for index in 0..<100 {
            await channels[0].sendReady()
            channels[0].send([0x52, UInt8(handle & 0xFF), UInt8(handle >> 8)] + Array(repeating: UInt8(index), count: 200))
        }
        channels[0].send([0x0A, UInt8(handle & 0xFF), UInt8(handle >> 8)])
        guard case .received(let read)? = await next(&first) else {
            Issue.record("no read response")
            return
        }
        #expect(read == [0x0B] + Array(repeating: UInt8(99), count: 200))

        channels[1].close()
        guard case .disconnected? = await next(&second) else {
            Issue.record("closed channel did not report its disconnection")
            return
        }
        #expect(host.connectionHandles == [channels[0].connection.handle])
        host.close()
        guard case .ended? = await next(&first) else {
            Issue.record("channel did not end with the host")
            return
        }
    }

    @Test("judge self-check: Bumble's GATT client passes every cell against the Bumble peripheral")
    func judgeSelfCheck() async throws {
        // Proves the judge and the declared database before the judge is pointed at our
        // GATT server: a failure there is then ours, not the harness's.
        let lab = try await InteropLab.start(role: "peripheral,central", hostControllers: 0, devices: 2)
        defer { lab.stop() }
        let address = try #require(lab.ready.device(0, "address"))
        let verdict = try await lab.run("judge \(address)", timeout: hangGuard)
        let cells = verdict.cells()
        #expect(Set(cells.keys) == Set(InteropLab.judgeCells), "\(verdict)")
        for name in InteropLab.judgeCells {
            #expect(cells[name]?.ok == true, "\(name): \(cells[name]?.detail ?? "missing")")
        }
    }

    static let longReadValue: [UInt8] = (0..<300).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) }

    static func uuidBytes(_ text: String) -> [UInt8] {
        parseHex(text, separators: "-") ?? []
    }
}
