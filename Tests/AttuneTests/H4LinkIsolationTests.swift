import Attune
import ControllerTestSupport
import Foundation
import Testing

extension Floods {
    /// Two links on one userland host, one of them misbehaving: the other must keep
    /// working. The host reads all of an adapter's links, and the HCI events they all wait
    /// on, from one H4 stream, so it may never stop reading it for one link's sake.
    @Suite("H4: one misbehaving link never stalls the adapter's others", .serialized)
    struct H4LinkIsolationTests {
        /// A second peripheral the flooding controller also serves, without flooding.
        static let quietAddress = BluetoothAddress(0xC6, 5, 4, 3, 2, 2)

        /// A central on `peer` with two links up: the flooding peripheral's and the quiet one's.
        static func twoLinks(to peer: FloodingController) async throws -> (CentralManager, flooding: Peripheral, quiet: Peripheral) {
            let central = await H4FloodTests.central(for: peer)
            let flooding = central.peripheral(address: FloodingController.address, type: .random)
            let quiet = central.peripheral(address: Self.quietAddress, type: .random)
            try await central.connect(flooding, discoverDatabase: false, preferredMTU: 23)
            try await central.connect(quiet, discoverDatabase: false, preferredMTU: 23)
            return (central, flooding, quiet)
        }

        /// Reads Heart Rate Measurement's CCCD `count` times over `peripheral`'s link.
        static func readCCCD(_ peripheral: Peripheral, times count: Int) async throws -> Int {
            let service = try #require(try await peripheral.discoverServices([BluetoothUUID(0x180D)]).first)
            let characteristic = try #require(
                try await peripheral.discoverCharacteristics([BluetoothUUID(0x2A37)], for: service).first)
            let cccd = try #require(try await peripheral.discoverDescriptors(for: characteristic).first)
            var read = 0
            for _ in 0..<count {
                #expect(try await peripheral.readValue(for: cccd) == [0x00, 0x00])
                read += 1
            }
            return read
        }

        /// Before: the host confirmed every indication of the flood (about 4,100 of them
        /// queued behind the controller's 8 ACL buffers), the buffers' Number Of Completed
        /// Packets waited unread behind the flood while the full inbox kept the host from
        /// reading, and the discovery's request never left: it failed 30 s later with an
        /// ATT timeout that blamed the peer for it, or never ended.
        @Test("an indication flood on one link: its discovery fails naming the flood, the other link reads on",
              .timeLimit(.minutes(10)))
        func indicationFlood() async throws {
            // The flood starts behind the answer to the discovery's first request.
            let peer = FloodingController(flood: .indications(handle: HeartRateATTServer.valueHandle),
                                          floodOnDiscovery: FloodingController.endless)
            defer { peer.close() }
            let (central, flooding, quiet) = try await Self.twoLinks(to: peer)

            async let reads = Self.readCCCD(quiet, times: 20)
            let outcome: Result<[Service], AttuneError>
            do {
                outcome = .success(try await flooding.discoverServices())
            } catch {
                outcome = .failure(error)
            }
            print("indication flood: discovery \(outcome), \(flooding.statistics.pdusReceived) PDUs taken")
            // The peer sends its first two indications back to back, ahead of the
            // discovery's second answer: the flood is certain, and must be named. (Before,
            // the discovery either waited out the flood or timed out, blaming the peer
            // for a request that never left.)
            switch outcome {
            case .success(let services):
                Issue.record("the discovery succeeded (\(services.map(\.uuid))) through an indication flood")
            case .failure(let error):
                #expect(error.description.contains("indication flood"), "\(error)")
            }
            #expect(try await reads == 20)
            // The flooding link was ended for it; the quiet one is still up.
            try await eventually("the flooding link was ended") { await flooding.state == .disconnected }
            #expect(try await Self.readCCCD(quiet, times: 1) == 1)
            await central.cancelConnection(quiet)
        }

        /// Before: the stalled link's full inbox took read interest away from the whole
        /// H4 stream, so the other link's responses (and every Number Of Completed
        /// Packets) waited behind it until the stall limit.
        @Test("a stalled consumer under a notification flood: the other link reads on, drops are counted",
              .timeLimit(.minutes(10)))
        func stalledLinkDoesNotStallTheOther() async throws {
            let peer = FloodingController()
            defer { peer.close() }
            let (central, flooding, quiet) = try await Self.twoLinks(to: peer)
            let service = try #require(try await flooding.discoverServices([BluetoothUUID(0x180D)]).first)
            let characteristic = try #require(
                try await flooding.discoverCharacteristics([BluetoothUUID(0x2A37)], for: service).first)
            // A consumer that never takes: the link is held for as long as the test runs.
            await flooding.setNotificationStallLimit(hangGuard)
            var values: NotificationStream? = await flooding.notifications(for: characteristic)
            try await flooding.setNotifyValue(true, for: characteristic)

            peer.flood(FloodingController.endless)
            try await eventually("the full consumer held the flooding link") {
                flooding.statistics.backPressurePauses > 0
            }
            // Every read below waits for its response behind the flood, on the same stream.
            #expect(try await Self.readCCCD(quiet, times: 20) == 20)
            // The consumer goes: the link is taken from again, and learns what its
            // transport dropped meanwhile.
            values = nil
            try await eventually("the flooding link's drops were counted") {
                flooding.statistics.pdusDropped > 0
            }
            await central.cancelConnection(quiet)
            await central.cancelConnection(flooding)
            #expect(values == nil)
        }
    }
}
