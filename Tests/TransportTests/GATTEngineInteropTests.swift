import ControllerTestSupport
import Foundation
import ATT
import GATT
import HCI
import InteropTestSupport
import Testing
import Transport

/// Our GATT client engine driven straight over a ``UserlandATTChannel`` (no public API),
/// at the default ATT_MTU of 23: long reads go through many Read Blobs and long writes
/// through many Prepare Writes, against the Bumble peripheral.
@Suite(.serialized, .enabled(if: InteropLab.pythonAvailable, "python3 is missing: the Bumble interop matrix cannot run"))
struct GATTEngineInteropTests {
    /// Runs one client engine over one channel: commands in, PDUs both ways, results out.
    struct Driver {
        var client: GATTLink
        let channel: UserlandATTChannel
        var incoming: UserlandATTChannel.Events.AsyncIterator
        let origin = ContinuousClock.now

        var now: MonotonicTime {
            let elapsed = ContinuousClock.now - origin
            return MonotonicTime(nanoseconds: UInt64(elapsed.components.seconds) * 1_000_000_000
                                 + UInt64(elapsed.components.attoseconds / 1_000_000_000))
        }

        init(channel: UserlandATTChannel, configuration: GATTClientConfiguration) {
            self.channel = channel
            client = GATTLink(configuration: configuration)
            incoming = channel.events.makeAsyncIterator()
        }

        /// Sends what the engine asks and returns the completion of `id`, if among `actions`.
        func carry(_ actions: [GATTClientAction], _ id: GATTRequestID?) -> Result<GATTClientResponse, GATTClientError>? {
            var result: Result<GATTClientResponse, GATTClientError>?
            for action in actions {
                switch action {
                case .send(let pdu): channel.send(pdu)
                case .complete(let finished, let outcome) where finished == id: result = outcome
                default: break
                }
            }
            return result
        }

        mutating func start() { _ = carry(client.start(at: now), nil) }

        mutating func run(_ command: GATTClientCommand) async throws -> Result<GATTClientResponse, GATTClientError> {
            let (id, actions) = client.perform(command, at: now)
            var result = carry(actions, id)
            while result == nil {
                guard case .received(let pdu)? = await incoming.next() else {
                    throw InteropLab.Failure(description: "link ended during \(command)")
                }
                result = carry(client.receive(pdu[...], at: now), id)
            }
            return result!
        }
    }

    @Test("GATT client engine at ATT_MTU 23: long read by blobs, long write by prepared writes, read by UUID, ATT error")
    func clientAtMinimumMTU() async throws {
        let lab = try await InteropLab.start(role: "peripheral")
        defer { lab.stop() }
        let capturePath = lab.captureDirectory.appendingPathComponent("attune-engine.btsnoop").path
        let host = try UserlandHost(endpoint: .tcp(host: "127.0.0.1", port: UInt16(lab.port(0))),
                                    configuration: HostConfiguration(randomAddress: HostUnderTest.randomAddress(0)),
                                    recorder: try BTSnoopRecorder(path: capturePath), routesATTToChannels: true)
        defer { host.close() }
        _ = try await host.start()
        let address = try #require(lab.ready.device(0, "address"))
        guard case .connected(let info) = try await host.perform(.connect(
            peer: try #require(BluetoothAddress(address)), peerAddressType: 1, parameters: ConnectionParameters(),
            timeout: hangGuard)) else { throw InteropLab.Failure(description: "no connection") }
        var driver = Driver(channel: try #require(host.attChannel(for: info.handle)),
                            configuration: GATTClientConfiguration(exchangesMTUOnStart: false, subscribesToServiceChanged: false))
        driver.start()
        func handle(_ name: String) throws -> AttributeHandle { AttributeHandle(try #require(lab.ready.handle(name))) }

        let long = try await driver.run(.readLongValue(try handle("long_read")))
        #expect(try long.get().value == (0..<300).map { UInt8(truncatingIfNeeded: $0 * 7 + 3) })

        let value = (0..<400).map { UInt8(truncatingIfNeeded: $0 * 13 + 1) }
        _ = try await driver.run(.writeLongValue(try handle("long_write"), value)).get()
        #expect(try await driver.run(.readLongValue(try handle("long_write"))).get().value == value)

        let byUUID = try await driver.run(.readUsingCharacteristicUUID(try #require(BluetoothUUID("7a7e0004-5d4c-4f8e-9a64-0c3f1e2b6a10"))))
        #expect(try byUUID.get().value == Array("attune-by-uuid".utf8))

        let error = try await driver.run(.readValue(try handle("error")))
        guard case .failure(let failure) = error else {
            Issue.record("the error characteristic was readable: \(error)")
            return
        }
        #expect(failure.attErrorCode == ATTErrorCode(rawValue: 0x8E), "\(failure)")

        // The capture proves the MTU: 300 bytes need 13 Read Blobs after the first 22-byte
        // Read, and 400 bytes 23 Prepare Writes of 18; tshark must see the same PDUs.
        host.close()
        for await _ in host.events {}
        let capture = try SessionCapture(path: capturePath)
        #expect(capture.attune.filter { $0.sent && $0.opcode == 0x0C }.count >= 13 + 18)
        #expect(capture.attune.filter { $0.sent && $0.opcode == 0x16 }.count == 23)
        if let tshark = capture.tshark {
            #expect(tshark.map { "\($0.sent):\($0.opcode)" } == capture.attune.map { "\($0.sent):\($0.opcode)" })
        }
    }
}
