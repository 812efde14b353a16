import Foundation
import Testing
@testable import Attune
@testable import Transport

/// A peer that declares a one-handle service at every handle up to 0xFFFF, each one
/// both primary and secondary (more services than a database has handles): connecting
/// must end its discovery on the last answer, and walking the tree a service at a time,
/// as `attune discover` does, must cost each service a lookup, not a scan.
@Suite("A service at every handle, to 0xFFFF", .serialized)
struct ServicePerHandleTreeTests {
    /// The first handle with a service; every handle from it to 0xFFFF has two.
    static let first: UInt16 = 0x0001
    static var perKind: Int { 0x1_0000 - Int(first) }

    /// Read By Group Type for primary (0x2800) or secondary (0x2801) services: one
    /// service at the start handle (or `first`); Attribute Not Found for the rest.
    @Sendable static func answer(_ pdu: [UInt8], _ link: any ATTLink) -> [[UInt8]] {
        if let mtu = RawATTPeer.mtu(pdu) { return mtu }
        guard let opcode = pdu.first, opcode & 0x40 == 0 else { return [] }
        let start = pdu.count >= 3 ? UInt16(pdu[1]) | UInt16(pdu[2]) << 8 : 0
        if opcode == 0x10, pdu.count == 7, pdu[6] == 0x28, pdu[5] <= 0x01 {
            let at = max(start, first)
            return [[0x11, 6, UInt8(at & 0xFF), UInt8(at >> 8), UInt8(at & 0xFF), UInt8(at >> 8), 0x0F, 0x18]]
        }
        return [[0x01, opcode, UInt8(start & 0xFF), UInt8(start >> 8), 0x0A]]
    }

    /// Before: each call's lookups scanned the whole tree and copied it, so the walk of
    /// 131,070 services kept the actor busy with no request going out ("silent after
    /// the last answer") and overshot the CLI's deadline by the time it took; and the
    /// tree went into a 28 MB store record that the next start moved aside as corrupt.
    @Test("the connection's discovery ends on the last answer; the tree walk costs a lookup per service; no record too big",
          .timeLimit(.minutes(10)))
    func walk() async throws {
        let radio = MemoryRadio()
        try RawATTPeer.start(on: radio, answer: Self.answer)
        let directory = StoreTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let central = CentralManager(transport: .memory(radio), store: try FileStore(directory: directory))
        let peripheral = central.peripheral(address: RawATTPeer.address, type: .random)
        let events = peripheral.lifecycleEvents
        let notStored = Task {
            for await event in events { if case .cacheNotStored(let why) = event { return why.description } }
            return "the lifecycle events ended"
        }
        let clock = ContinuousClock()
        let started = clock.now
        try await central.connect(peripheral, timeout: .seconds(10), preferredMTU: 23, discoveryTimeout: nil)
        let connected = clock.now
        let tree = try #require(await peripheral.knownTree)
        #expect(tree.count == 2 * Self.perKind)
        #expect(tree.last?.handleRange == AttributeHandleRange(start: 0xFFFF, end: 0xFFFF))
        // Not a database (more attributes than handles): kept for this link, not stored,
        // and said so; the store opens again with nothing to move aside.
        let why = await notStored.value
        #expect(why.contains("131070 attributes"), "\(why)")
        let reopened = try FileStore(directory: directory)
        #expect(reopened.problems.isEmpty)
        #expect(reopened.record(for: peripheral.identifier)?.cache == nil)

        // The walk of `attune discover` (CentralContext.tree), from the cache.
        let services = try await peripheral.discoverServices()
        #expect(services.count == Self.perKind)
        var included = 0
        var characteristics = 0
        for service in services {
            included += try await peripheral.discoverIncludedServices(for: service).count
            characteristics += try await peripheral.discoverCharacteristics(for: service).count
        }
        #expect(included == 0 && characteristics == 0)
        print("service per handle from 0x\(String(Self.first, radix: 16)): connected with discovery in "
              + "\(connected - started), walked \(services.count) services in \(clock.now - connected)")
        await central.cancelConnection(peripheral)
    }
}
