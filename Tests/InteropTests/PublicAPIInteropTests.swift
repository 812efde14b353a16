import Attune
import ControllerTestSupport
import Foundation
import InteropTestSupport
import Testing

/// The public API (``CentralManager``, ``Peripheral``) with our GATT client engine, over
/// our userland host on an emulated controller, against the Bumble GATT peripheral and
/// its declared database: the "our central, Bumble peripheral" half of the matrix.
@Suite(.serialized, .enabled(if: InteropLab.pythonAvailable, "python3 is missing: the Bumble interop matrix cannot run"))
struct PublicAPIInteropTests {
    static let service = BluetoothUUID("7a7e0001-5d4c-4f8e-9a64-0c3f1e2b6a10")!
    static func uuid(_ n: Int) -> BluetoothUUID { BluetoothUUID("7a7e000\(n)-5d4c-4f8e-9a64-0c3f1e2b6a10")! }

    /// A central on the lab's first controller, once it is powered on.
    static func central(_ lab: InteropLab, snoop: SnoopFile? = nil) async throws -> CentralManager {
        let central = CentralManager(transport: .h4(.tcp(host: "127.0.0.1", port: UInt16(lab.port(0)))), snoop: snoop)
        for await state in central.stateUpdates where state == .poweredOn || state == .unsupported { break }
        try #require(central.state == .poweredOn, "\(central.status)")
        return central
    }

    @Test("our central: scan, connect with discovery, read, long read, writes, notify, indicate, ATT error, disconnect")
    func centralAgainstBumblePeripheral() async throws {
        let lab = try await InteropLab.start(role: "peripheral", notifyCount: 3)
        defer { lab.stop() }
        // Our own capture of the session, through the managers' `snoop:` option.
        let capturePath = FileManager.default.temporaryDirectory.appendingPathComponent("api-central-\(UUID().uuidString).btsnoop").path
        defer { try? FileManager.default.removeItem(atPath: capturePath) }
        let central = try await Self.central(lab, snoop: try SnoopFile(path: capturePath))
        let name = try #require(lab.ready.device(0, "name"))

        var found: Advertisement?
        for await advertisement in try central.scan() where advertisement.localName == name {
            found = advertisement
            break
        }
        let advertisement = try #require(found)
        #expect(advertisement.addressType == .random)
        let peripheral = central.peripheral(for: advertisement)
        try await central.connect(peripheral, timeout: hangGuard)
        let mtu = await peripheral.mtu
        #expect(mtu > 23, "MTU exchanged")

        let services = try await peripheral.discoverServices([Self.service])
        let service = try #require(services.first)
        let characteristics = try await peripheral.discoverCharacteristics(nil, for: service)
        func characteristic(_ n: Int) throws -> Characteristic {
            try #require(characteristics.first { $0.uuid == Self.uuid(n) }, "characteristic \(n) discovered")
        }
        #expect(characteristics.count == 6)

        // Read, and a long read of 300 bytes.
        #expect(try await peripheral.readValue(for: characteristic(4)) == Array("attune-by-uuid".utf8))
        #expect(try await peripheral.readValue(for: characteristic(2)) == (0..<300).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) })

        // Write, long write (400 bytes), write without response; each read back.
        let writable = try characteristic(3)
        for value in [Array(0..<20), (0..<400).map { UInt8(truncatingIfNeeded: $0 * 13 + 1) }] as [[UInt8]] {
            try await peripheral.writeValue(value, for: writable, type: .withResponse)
            #expect(try await peripheral.readValue(for: writable) == value)
        }
        try await peripheral.writeValue(Array("no-response".utf8), for: writable, type: .withoutResponse)
        #expect(try await peripheral.readValue(for: writable) == Array("no-response".utf8))

        // Notify and indicate: the peripheral sends three of each on subscription.
        for n in [5, 6] {
            let target = try characteristic(n)
            let values = await peripheral.notifications(for: target)
            try await peripheral.setNotifyValue(true, for: target)
            var received: [[UInt8]] = []
            for try await notification in values {
                received.append(notification.value)
                if received.count == 3 { break }
            }
            #expect(received == (0..<3).map { [UInt8](repeating: UInt8($0), count: 4) }, "characteristic \(n)")
        }

        // A read the peripheral's callback refuses with application error 0x8E.
        await #expect(throws: AttuneError.att(ATTErrorCode(rawValue: 0x8E))) {
            try await peripheral.readValue(for: characteristic(7))
        }

        await central.cancelConnection(peripheral)
        let bumbleSide = try await lab.waitFor("disconnected", timeout: hangGuard)
        #expect(bumbleSide.int("reason") == 0x13)
        // The session's capture, from the peer's host: our decoder and tshark agree on it.
        try await lab.finishAndVerifyCaptures()
        // And ours, written by `snoop:`: MTU exchange, read, write, write command,
        // notification, indication and its confirmation, the error response. (Whether
        // the long procedures need blobs and prepared writes depends on the MTU Bumble
        // grants, so they are left to the tshark comparison.)
        try SessionCapture.verifyPublicAPICapture(capturePath, expected: [
            (true, 0x02), (false, 0x03), (true, 0x0A), (false, 0x0B), (true, 0x12), (false, 0x13),
            (true, 0x52), (false, 0x1B), (false, 0x1D), (true, 0x1E), (false, 0x01),
        ])
    }

    /// Scans until every named device has been seen, then returns their peripherals.
    static func find(_ names: [String], with central: CentralManager) async throws -> [Peripheral] {
        var found: [String: Advertisement] = [:]
        for await advertisement in try central.scan() {
            if let name = advertisement.localName, names.contains(name) { found[name] = advertisement }
            if found.count == names.count { break }
        }
        return try names.map { name in
            let advertisement = try #require(found[name])
            return central.peripheral(for: advertisement)
        }
    }

    @Test("our central: Bumble disconnects, and the peripheral reports the reason")
    func peerDisconnects() async throws {
        let lab = try await InteropLab.start(role: "peripheral")
        defer { lab.stop() }
        let central = try await Self.central(lab)
        let name = try #require(lab.ready.device(0, "name"))
        let peripheral = try #require(try await Self.find([name], with: central).first)
        let events = peripheral.lifecycleEvents
        try await central.connect(peripheral, timeout: hangGuard)
        lab.send("disconnect 0x13")
        var reason: DisconnectReason?
        for await event in events {
            if case .disconnected(let why, _) = event {
                reason = why
                break
            }
        }
        #expect(reason == .hci(HCIStatus.remoteUserTerminatedConnection))
        #expect(await peripheral.state == .disconnected)
    }

    @Test("our central: two peripherals at once; one leaves, the other keeps working")
    func twoPeripherals() async throws {
        let lab = try await InteropLab.start(role: "peripheral", devices: 2)
        defer { lab.stop() }
        let central = try await Self.central(lab)
        let name0 = try #require(lab.ready.device(0, "name"))
        let name1 = try #require(lab.ready.device(1, "name"))
        let names = [name0, name1]
        let peripherals = try await Self.find(names, with: central)
        for peripheral in peripherals { try await central.connect(peripheral, timeout: hangGuard) }
        var readable: [Characteristic] = []
        for peripheral in peripherals {
            let service = try #require(try await peripheral.discoverServices([Self.service]).first)
            let characteristic = try #require(try await peripheral.discoverCharacteristics([Self.uuid(4)], for: service).first)
            readable.append(characteristic)
        }
        // Reads on both links at the same time.
        let (c0, c1) = (readable[0], readable[1])
        let (p0, p1) = (peripherals[0], peripherals[1])
        async let first = p0.readValue(for: c0)
        async let second = p1.readValue(for: c1)
        #expect(try await [first, second] == [Array("attune-by-uuid".utf8), Array("attune-by-uuid".utf8)])
        let ending = peripherals[0].lifecycleEvents
        await central.cancelConnection(peripherals[0])
        _ = try await within("the first link ends") {
            for await event in ending where event == .phase(.disconnected) { return }
            throw WaitFailed("the first peripheral's lifecycle ended before it disconnected")
        }
        #expect(await peripherals[0].state == .disconnected)
        _ = try await lab.waitFor("disconnected", timeout: hangGuard)
        #expect(try await peripherals[1].readValue(for: readable[1]) == Array("attune-by-uuid".utf8))
        #expect(await peripherals[1].state == .connected)
    }

    @Test("the H4 stream dying ends the connection with a transport reason and the manager goes unsupported")
    func streamLoss() async throws {
        let lab = try await InteropLab.start(role: "peripheral")
        let central = try await Self.central(lab)
        let name = try #require(lab.ready.device(0, "name"))
        let peripheral = try #require(try await Self.find([name], with: central).first)
        let events = peripheral.lifecycleEvents
        try await central.connect(peripheral, timeout: hangGuard)
        let states = central.stateUpdates
        // The whole lab goes away: controllers, link, peer.
        lab.stop()
        var reason: DisconnectReason?
        for await event in events {
            if case .disconnected(let why, _) = event {
                reason = why
                break
            }
        }
        guard case .transport(let text)? = reason else {
            Issue.record("disconnected for \(String(describing: reason))")
            return
        }
        #expect(text.contains("closed the stream"), "\(text)")
        _ = try await within("the manager goes unsupported") {
            for await state in states where state == .unsupported { return }
            throw WaitFailed("the state updates ended before unsupported")
        }
        #expect(central.state == .unsupported, "\(central.status)")
    }
}
