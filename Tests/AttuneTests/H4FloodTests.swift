import Attune
import ControllerTestSupport
import Foundation
import Synchronization
import Testing

extension Floods {
    /// Notification floods through the public API over the userland host and a real socket:
    /// the link must stay usable (requests answered in the middle of the flood), the host
    /// drops and counts what the link's owner does not take in time (rather than stop
    /// reading the adapter), and nothing may be lost without being counted.
    ///
    /// The memory bound of each flood is checked in AttuneCLITests, on the built `attune`
    /// as a process of its own: here the RSS of the whole test process grows with every
    /// test running beside this one, which could fail the check, or hide a leak.
    @Suite("H4 floods through the public API", .serialized)
    struct H4FloodTests {
        /// A central on the userland host, connected to a ``FloodingController`` through a UNIX socket.
        static func central(for peer: FloodingController) async -> CentralManager {
            let central = CentralManager(transport: .h4(.unix(path: peer.path)))
            peer.start()
            for await state in central.stateUpdates where state != .unknown { break }
            return central
        }

        /// Its memory bound: `CLIFloodTests.discoverUnderNotificationFlood`, the same flood
        /// from connection (endless there) against `attune discover`.
        @Test("a flood from the moment of connection: connect and discovery finish, the flood counted",
              .timeLimit(.minutes(10)))
        func floodFromConnect() async throws {
            // Big enough that a per-value buffer anywhere on the path would show (tens of
            // MB), small enough not to starve the rest of a parallel suite on two cores.
            let flooded = 200_000
            // Notifications for the characteristic's value handle; nobody ever subscribes.
            let peer = FloodingController(floodOnConnect: flooded)
            defer { peer.close() }
            let central = await Self.central(for: peer)
            let peripheral = central.peripheral(address: FloodingController.address, type: .random)
            // No discovery while connecting: each call below runs its own procedure, with
            // its responses queued behind the flood already in the socket.
            try await central.connect(peripheral, discoverDatabase: false, preferredMTU: 23)
            let services = try await peripheral.discoverServices([BluetoothUUID(0x180D)])
            try #require(services.count == 1)
            let characteristics = try await peripheral.discoverCharacteristics([BluetoothUUID(0x2A37)], for: services[0])
            #expect(characteristics.map(\.valueHandle) == [AttributeHandle(HeartRateATTServer.valueHandle)])
            // Answered in the middle of the flood, not after it: the socket holds only a few
            // thousand notifications ahead of each response.
            #expect(peer.notificationsWritten < flooded, "discovery finished only once the flood was over")
            // Every flooded PDU, and every response, reaches the peripheral and is dropped
            // there, or is dropped by the transport and counted.
            try await eventually("the peripheral took or counted the whole flood") {
                let stats = peripheral.statistics
                return peer.notificationsWritten == flooded
                    && stats.pdusReceived + stats.pdusDropped == flooded + peer.responsesSent
            }
            #expect(peripheral.statistics.notificationsReceived == 0)
            await central.cancelConnection(peripheral)
        }

        /// Its memory bound: `CLIStalledSubscriberTests`, `attune subscribe` whose stdout
        /// nobody reads under the same 120,000 values.
        @Test("a subscriber that stalls under a flood: every value delivered or counted",
              .timeLimit(.minutes(10)))
        func subscribeUnderFlood() async throws {
            let flooded = 120_000
            let peer = FloodingController()
            defer { peer.close() }
            let central = await Self.central(for: peer)
            let peripheral = central.peripheral(address: FloodingController.address, type: .random)
            try await central.connect(peripheral, preferredMTU: 23)
            let service = try #require(try await peripheral.discoverServices([BluetoothUUID(0x180D)]).first)
            let characteristic = try #require(
                try await peripheral.discoverCharacteristics([BluetoothUUID(0x2A37)], for: service).first)
            await peripheral.setNotificationStallLimit(.milliseconds(100))
            let values = await peripheral.notifications(for: characteristic)
            try await peripheral.setNotifyValue(true, for: characteristic)

            peer.flood(flooded)
            // Nothing is taken until the full consumer has held the link past its stall
            // limit and values were dropped; meanwhile the peer's writes block on the socket.
            try await eventually("the stalled consumer lost values") { peripheral.statistics.notificationsLost > 0 }
            #expect(peripheral.statistics.backPressurePauses > 0)

            let delivered = Mutex(0), reported = Mutex(0)
            let consumer = Task {
                do {
                    for try await notification in values {
                        delivered.withLock { $0 += 1 }
                        reported.withLock { $0 += notification.lostBefore }
                    }
                } catch {}
            }
            // What the stalled link's transport dropped (the host does not stop reading the
            // adapter for one link) is counted in pdusDropped; what the consumer's buffer
            // dropped, in notificationsLost.
            try await eventually("every flooded value was delivered or counted lost") {
                let stats = peripheral.statistics
                return stats.notificationsReceived + stats.pdusDropped == flooded
                    && delivered.withLock { $0 } + stats.notificationsLost + stats.pdusDropped == flooded
            }
            #expect(peripheral.statistics.pdusDropped > 0, "the transport dropped some: the case under test")
            // The flood may end with drops, which only a later value can report: one more,
            // sent once the inbox is empty, so it is delivered.
            peer.flood(1)
            try await eventually("the last value was delivered") {
                let stats = peripheral.statistics
                return delivered.withLock { $0 } + stats.notificationsLost + stats.pdusDropped == flooded + 1
            }
            await central.cancelConnection(peripheral)
            await consumer.value
            let stats = peripheral.statistics
            #expect(peer.notificationsWritten == flooded + 1)
            #expect(delivered.withLock { $0 } + stats.notificationsLost + stats.pdusDropped == flooded + 1)
            // Every drop, by the consumer's buffer or by the transport, is reported to the
            // consumer on the next value it takes: the gateway's lost_before misses none.
            #expect(reported.withLock { $0 } == stats.notificationsLost + stats.pdusDropped)
        }
    }
}
