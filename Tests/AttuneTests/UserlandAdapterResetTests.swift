#if canImport(Glibc)
import Glibc
#endif
import Attune
import ControllerTestSupport
import Foundation
import HCI
import Synchronization
import Testing
import Transport

/// ``CentralManager/resetAdapter()`` over the userland host, against an emulated
/// controller on a UNIX socket: HCI_Reset goes out, the whole initialisation runs again,
/// the live link is reported disconnected and the connect in progress fails; a
/// controller that never answers the reset makes the call fail with a timeout instead
/// of hanging.
@Suite("Userland host: resetting the adapter", .timeLimit(.minutes(10)))
struct UserlandAdapterResetTests {
    static let peer = BluetoothAddress(0xF0, 0xA7, 0x7E, 0x00, 0x00, 0x21)
    static let unreachable = BluetoothAddress(0xF0, 0xA7, 0x7E, 0x00, 0x00, 0x22)
    static let reset: UInt16 = 0x0C03

    /// A controller with one peripheral (the Heart Rate ATT server at handle 0x0040) and
    /// another that never answers a connect; it answers HCI_Reset `resetsAnswered` times.
    final class EmulatedController: Sendable {
        let listener = UnixSocketListener(prefix: "attune-reset")
        /// Every command opcode the host sent, in order.
        let opcodes = EventRecord<UInt16>()

        init(resetsAnswered: Int) {
            let thread = Thread { [self] in
                let fd = listener.accept()
                guard fd >= 0 else { return }
                defer { Glibc.close(fd) }
                var resets = 0
                func send(_ bytes: [UInt8]) { _ = H4Packet.writeAll(fd, bytes[...]) }
                H4Packet.forEachPacket(from: fd) { packet in
                    if packet.first == 0x02, packet.count >= 9 {
                        // ATT to the peripheral: answered, and its buffer handed back.
                        let handle = (UInt16(packet[1]) | UInt16(packet[2]) << 8) & 0x0FFF
                        send(H4Packet.completedPackets(handle: handle))
                        if let answer = HeartRateATTServer.response(to: Array(packet[9...])) {
                            send(H4Packet.acl(answer, handle: handle))
                        }
                        return
                    }
                    guard packet.count >= 4, packet[0] == 0x01 else { return }
                    let opcode = UInt16(packet[1]) | UInt16(packet[2]) << 8
                    opcodes.append(opcode)
                    switch opcode {
                    case UserlandAdapterResetTests.reset:
                        resets += 1
                        if resets <= resetsAnswered { send(H4Packet.commandComplete(opcode, [0])) }
                    case 0x200D:  // LE Create Connection: only the one peer ever answers
                        send(H4Packet.commandStatus(opcode))
                        if packet.count >= 16, Array(packet[10..<16]) == UserlandAdapterResetTests.peer.littleEndianBytes {
                            send(H4Packet.connectionComplete(handle: 0x0040, peer: UserlandAdapterResetTests.peer))
                        }
                    case 0x200E:  // LE Create Connection Cancel
                        send(H4Packet.commandComplete(opcode, [0]))
                    case 0x0406:  // Disconnect
                        send(H4Packet.commandStatus(opcode))
                        send(H4Packet.event(0x05, [0x00, packet[4], packet[5], 0x16]))
                    default:
                        if let complete = ControllerInitAnswers.commandComplete(answering: packet) { send(complete) }
                    }
                }
            }
            thread.start()
        }

        deinit { listener.close() }

        /// The commands sent from the `index`th HCI_Reset on (0 the one at start).
        func commands(fromReset index: Int) -> [UInt16] {
            let all = opcodes.events
            let resets = all.indices.filter { all[$0] == UserlandAdapterResetTests.reset }
            guard index < resets.count else { return [] }
            let end = index + 1 < resets.count ? resets[index + 1] : all.endIndex
            return Array(all[resets[index]..<end])
        }
    }

    static func poweredOnCentral(_ controller: EmulatedController) async throws -> CentralManager {
        let central = CentralManager(transport: .h4(.unix(path: controller.listener.path)))
        for await state in central.stateUpdates where state == .poweredOn || state == .unsupported { break }
        try #require(central.state == .poweredOn, "\(central.status)")
        return central
    }

    @Test("HCI_Reset, the initialisation again, the link reported down, the pending connect failed")
    func resetRunsAgainstTheController() async throws {
        let controller = EmulatedController(resetsAnswered: 2)
        let central = try await Self.poweredOnCentral(controller)
        let peripheral = central.peripheral(address: Self.peer, type: .random)
        try await central.connect(peripheral, timeout: hangGuard)
        #expect(await peripheral.state == .connected)
        let events = peripheral.lifecycleEvents
        let states = central.stateUpdates
        let waiting = central.peripheral(address: Self.unreachable, type: .random)
        let attempt = Task { () -> Result<Void, AttuneError> in
            do throws(AttuneError) {
                try await central.connect(waiting, timeout: hangGuard)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        // The attempt is at the controller (its LE Create Connection sent) before the reset.
        try await controller.opcodes.waitFor("the second LE Create Connection", skipping: 1) { $0 == 0x200D }

        try await central.resetAdapter()

        #expect(central.state == .poweredOn)
        let initialisation = Array(controller.commands(fromReset: 0).prefix { $0 != 0x200D })
        let afterReset = controller.commands(fromReset: 1)
        #expect(afterReset.first == Self.reset, "HCI_Reset went out")
        #expect(initialisation.count >= 8 && Array(afterReset.prefix(initialisation.count)) == initialisation,
                "the initialisation ran again: \(afterReset.map { String($0, radix: 16) }) after \(initialisation.map { String($0, radix: 16) })")
        guard case .failure(let failure) = await attempt.value, case .connectionFailed = failure else {
            Issue.record("the pending connect should fail with connectionFailed")
            return
        }
        var disconnect: LifecycleEvent?
        for await event in events {
            if case .disconnected = event {
                disconnect = event
                break
            }
        }
        #expect(disconnect == .disconnected(.hci(HCIStatus.connectionTerminatedByLocalHost), reconnectAt: nil))
        #expect(await peripheral.state == .disconnected)
        var seen: [ManagerState] = []
        for await state in states {
            seen.append(state)
            if seen.count == 3 { break }
        }
        #expect(seen == [.poweredOn, .resetting, .poweredOn])

        // The controller is usable again: the same peer connects.
        try await central.connect(peripheral, timeout: hangGuard)
        #expect(await peripheral.state == .connected)
    }

    @Test("a controller that never answers the reset: the call fails with a timeout, nothing hangs")
    func silentControllerTimesOut() async throws {
        let controller = EmulatedController(resetsAnswered: 1)
        let central = try await Self.poweredOnCentral(controller)
        let clock = ContinuousClock()
        let started = clock.now
        await #expect {
            try await central.resetAdapter()
        } throws: { error in
            guard let error = error as? AttuneError, case .controllerTimeout(let what) = error else { return false }
            return what.lowercased().contains("0c03")
        }
        #expect(clock.now - started < .seconds(20), "bounded by the host's command timeout")
        // The host stopped: the state says so once it has wound down.
        for await state in central.stateUpdates where state == .unsupported { break }
        #expect(central.state == .unsupported, "a controller that ignores a reset is unusable: \(central.status)")
        await #expect(throws: AttuneError.self) { try await central.resetAdapter() }
    }
}
