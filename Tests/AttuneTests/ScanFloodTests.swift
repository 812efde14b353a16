import Attune
import ControllerTestSupport
import Foundation
import HCI
import Synchronization
import Testing
import Transport

extension Floods {
    /// A street full of random addresses, played by a ``FloodingController`` through a real socket:
    /// 50,000 distinct advertisers, through the public API and through the userland host
    /// with the filter the CLI uses. Each device is delivered once, the device table stays
    /// within its limit, and every report dropped on the way is counted.
    ///
    /// That memory stays flat is checked by `CLIScanFloodTests` (AttuneCLITests), the same
    /// floods against `attune scan` on both of its paths, a process of its own: here the RSS
    /// of the whole test process grows with every test running beside this one, which could
    /// fail the check, or hide a leak.
    @Suite("Scan floods through the userland host", .serialized)
    struct ScanFloodTests {
        /// Five times the table's default limit: enough to prove the bounds, small enough not
        /// to starve the rest of a suite that runs beside it on two cores.
        static let devices = 50_000
        static let floodBase: UInt64 = 0xC1_0000_000000
        static let sentinelBase: UInt64 = 0xD1_0000_000000

        /// One bit per flood advertiser: seen once, or twice (which must not happen).
        final class Sightings: Sendable {
            private let state = Mutex((bits: [UInt64](repeating: 0, count: ScanFloodTests.devices / 64 + 1),
                                       once: 0, twice: 0, sentinels: 0, lost: 0))

            func saw(_ address: BluetoothAddress, lostBefore: Int) {
                state.withLock { s in
                    s.lost += lostBefore
                    let raw = address.rawValue
                    if raw & 0xFF_0000_000000 == ScanFloodTests.sentinelBase {
                        s.sentinels += 1
                        return
                    }
                    let index = Int(raw - ScanFloodTests.floodBase)
                    guard index >= 0, index < ScanFloodTests.devices else { return }
                    let (word, bit) = (index / 64, UInt64(1) << UInt64(index % 64))
                    if s.bits[word] & bit != 0 { s.twice += 1 } else { s.once += 1 }
                    s.bits[word] |= bit
                }
            }

            func lost(_ count: Int) { state.withLock { $0.lost += count } }

            var counts: (once: Int, twice: Int, sentinels: Int, lost: Int) {
                state.withLock { ($0.once, $0.twice, $0.sentinels, $0.lost) }
            }
        }

        /// After the flood, one new non-connectable advertiser per check until one is seen:
        /// every report of the flood is then delivered or counted (drops travel with the next
        /// report that gets through, and these come after all of the flood).
        static func awaitSentinel(_ peer: FloodingController, _ sightings: Sightings) async throws -> Int {
            var sent = 0
            try await eventually("a report after the whole flood came through") {
                if peer.advertisersReported >= devices + sent {
                    peer.advertise(1, from: sentinelBase + UInt64(sent), scanResponse: false)
                    sent += 1
                }
                return sightings.counts.sentinels > 0
            }
            return sent
        }

        /// Its memory bound: `CLIScanFloodTests.centralScanUnderFlood` (`scan --transport`).
        @Test("CentralManager.scan under 50,000 random addresses: each once, drops counted",
              .timeLimit(.minutes(10)))
        func centralScanUnderFlood() async throws {
            let peer = FloodingController()
            defer { peer.close() }
            let central = await H4FloodTests.central(for: peer)
            let sightings = Sightings()
            let stream = try central.scan()
            let consumer = Task {
                for await ad in stream { sightings.saw(ad.address, lostBefore: ad.lostBefore) }
            }
            peer.advertise(Self.devices, from: Self.floodBase, scanResponse: false)
            let sentinels = try await Self.awaitSentinel(peer, sightings)
            consumer.cancel()
            let counts = sightings.counts
            #expect(counts.twice == 0, "a device was delivered twice")
            #expect(counts.once > 0)
            #expect(counts.once + counts.lost >= Self.devices, "\(counts.once) delivered, \(counts.lost) counted lost")
            #expect(counts.once + counts.lost <= Self.devices + sentinels)
        }

        /// Its memory bound: `CLIScanFloodTests.hostScanUnderFlood` (`scan --controller`).
        @Test("the userland host and the CLI's filter under 50,000 advertisers with scan responses: table bounded",
              .timeLimit(.minutes(10)))
        func hostScanUnderFlood() async throws {
            let peer = FloodingController()
            defer { peer.close() }
            let host = try UserlandHost(endpoint: .unix(path: peer.path), configuration: HostConfiguration(
                randomAddress: BluetoothAddress(0xC0, 0xA7, 0x7E, 0x00, 0x00, 0x01)))
            defer { host.close() }
            peer.start()
            _ = try await host.start()
            let sightings = Sightings()
            let named = Mutex(0)
            let filter = ScanFilter(ScanTable()) { ad in
                if ad.localName == "Flood" { named.withLock { $0 += 1 } }
                // A scan response that comes after the hold ran out (a loaded machine) is an
                // update of the device, as documented, not a second discovery.
                guard !ad.isUpdate else { return }
                sightings.saw(ad.address, lostBefore: 0)
            }
            let largest = Mutex(0)
            let events = host.events
            let reader = Task {
                for await event in events {
                    guard case .advertisingReport(let report) = event else { continue }
                    filter.receive(Advertisement(report))
                    let count = filter.count
                    largest.withLock { $0 = max($0, count) }
                    sightings.lost(report.lostBefore)
                }
            }
            _ = try await host.perform(.startScanning(ScanConfiguration()))
            peer.advertise(Self.devices, from: Self.floodBase, scanResponse: true)
            _ = try await Self.awaitSentinel(peer, sightings)
            host.close()
            await reader.value
            filter.close()
            let counts = sightings.counts
            #expect(largest.withLock { $0 } <= ScanTable.defaultLimit)
            #expect(largest.withLock { $0 } == ScanTable.defaultLimit, "the table filled: the flood went through it")
            #expect(counts.twice == 0, "a device was delivered twice")
            #expect(named.withLock { $0 } > 0, "scan responses were merged in")
            #expect(counts.once <= Self.devices)
        }
    }
}
