import Foundation
import GATT
import Synchronization
import Testing
@testable import Transport
@testable import Attune

/// The peripheral manager enforces `encrypted`, `authenticated` and `secure` access rules
/// against the security its link reports: before encryption a protected read gets
/// Insufficient Encryption or Authentication, and once the link says it is secure enough
/// the same read returns the value. A fake link stands in for the userland host's.
struct PeripheralAccessRuleTests {
    final class SecuredLink: ATTLink {
        let peerAddress = BluetoothAddress(0x11, 0x22, 0x33, 0x44, 0x55, 0x66)
        let peerAddressType = BluetoothAddressType.public
        let peer = LinkInbox<LinkEvent>(capacity: 16)
        /// What the server sent, in order.
        let (sent, sentInput) = AsyncStream.makeStream(of: [UInt8].self)
        let level = Mutex(LinkSecurity.none)
        nonisolated(nonsending) func receive() async -> [LinkEvent] { await peer.take() }
        func send(_ pdu: [UInt8]) { sentInput.yield(pdu) }
        var canSend: Bool { true }
        var hasEnded: Bool { false }
        func sendReady() async {}
        func raiseSecurity() async throws(AttuneError) {}
        var security: LinkSecurity { level.withLock { $0 } }
        func close() {}

        /// Sends a Read Request and waits for the server's answer to it.
        func read(_ handle: AttributeHandle) async throws -> [UInt8] {
            peer.push(.received([0x0A, UInt8(handle.rawValue & 0xFF), UInt8(handle.rawValue >> 8)]))
            // One request at a time, so the next PDU the server sends is its answer.
            return try await first(sent, "the answer to a read of \(handle)") { _ in true }
        }
    }

    static let service = BluetoothUUID("7a7e0030-5d4c-4f8e-9a64-0c3f1e2b6a10")!

    func published(_ rules: [AccessRule]) async throws -> (PeripheralManager, [AttributeHandle]) {
        let manager = try PeripheralManager(transport: .memory(MemoryRadio()))
        let characteristics = rules.enumerated().map { index, rule in
            CharacteristicDefinition(BluetoothUUID(UInt16(0xFFF0 + index)), properties: [.read],
                                     permissions: .readable(rule), value: [UInt8(index)])
        }
        let service = try await manager.add(ServiceDefinition(Self.service, characteristics: characteristics))
        return (manager, service.characteristics.map(\.valueHandle))
    }

    static func error(_ code: UInt8, _ handle: AttributeHandle) -> [UInt8] {
        [0x01, 0x0A, UInt8(handle.rawValue & 0xFF), UInt8(handle.rawValue >> 8), code]
    }

    @Test("encrypted, authenticated and secure rules follow the link's security, batch by batch", .timeLimit(.minutes(10)))
    func rulesFollowTheLink() async throws {
        let (manager, handles) = try await published([.encrypted, .authenticated, .secure, .open])
        let link = SecuredLink()
        await manager.accept(link)
        let (encrypted, authenticated, secure, open) = (handles[0], handles[1], handles[2], handles[3])

        // Not encrypted: 0x0F for the encryption rule, 0x05 for the two that need MITM.
        #expect(try await link.read(encrypted) == Self.error(0x0F, encrypted))
        #expect(try await link.read(authenticated) == Self.error(0x05, authenticated))
        #expect(try await link.read(secure) == Self.error(0x05, secure))
        #expect(try await link.read(open) == [0x0B, 3])

        // Just Works with Secure Connections: encrypted, not authenticated.
        link.level.withLock { $0 = LinkSecurity(encrypted: true, secureConnections: true, keySize: 16) }
        #expect(try await link.read(encrypted) == [0x0B, 0])
        #expect(try await link.read(authenticated) == Self.error(0x05, authenticated))
        #expect(try await link.read(secure) == Self.error(0x05, secure))

        // Authenticated legacy: everything but the Secure Connections rule.
        link.level.withLock { $0 = .authenticated }
        #expect(try await link.read(authenticated) == [0x0B, 1])
        #expect(try await link.read(secure) == Self.error(0x05, secure))

        link.level.withLock { $0 = .secure }
        #expect(try await link.read(secure) == [0x0B, 2])
        link.peer.finish(.closed(.hci(HCIStatus.remoteUserTerminatedConnection)))
    }
}
