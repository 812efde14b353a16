import Foundation
import Testing

/// `attune unpair` reports success only when the store, read back, holds no bond of the
/// peer: every record of it (at an RPA, at its identity), found by any of its addresses.
extension BondsCommandTests {
    /// The spec's `ah` sample (Vol 3 Part H D.7): this IRK (least significant octet first)
    /// made this resolvable private address.
    static let sampleIRK = Array([0xec, 0x02, 0x34, 0xa3, 0x57, 0xc8, 0xad, 0x05,
                                  0x34, 0x10, 0x10, 0xa6, 0x0a, 0x39, 0x7d, 0x9b].reversed())
    static let sampleRPA = "70:81:94:0D:FB:AA", identity = "00:1B:DC:01:02:03"

    @Test("unpair by one address forgets every bond of that peer: at its RPA and at its identity")
    func unpairForgetsEveryRecordOfThePeer() async throws {
        let store = try Self.emptyStore()
        defer { try? FileManager.default.removeItem(atPath: store) }
        let bond: [String: Any] = ["identityAddress": Self.identity, "identityAddressType": 0, "identityResolvingKey": Self.sampleIRK]
        // Bonded as central (at the address it advertised) and as peripheral (at its identity).
        try Self.writeRecord(in: store, address: Self.sampleRPA, type: 1, bond: bond)
        try Self.writeRecord(in: store, address: Self.identity, type: 0, bond: bond)
        #expect(try await AttuneProcess.run(["bonds"], store: store).stdoutLines.count == 2)
        let unpaired = try await AttuneProcess.run(["unpair", Self.sampleRPA], store: store)
        let left = try await AttuneProcess.run(["bonds"], store: store)
        #expect(unpaired.status == 0 && left.stdoutLines.isEmpty,
                "unpair said \(unpaired.status) \(unpaired.stderr) while the store still lists \(left.stdout)")
    }

    @Test("unpair by a resolvable private address the stored IRK resolves forgets that peer")
    func unpairResolvesAPrivateAddress() async throws {
        let store = try Self.emptyStore()
        defer { try? FileManager.default.removeItem(atPath: store) }
        try Self.writeRecord(in: store, address: Self.identity, type: 0,
                             bond: ["identityAddress": Self.identity, "identityAddressType": 0, "identityResolvingKey": Self.sampleIRK])
        try Self.writeRecord(in: store, address: Self.address, type: 1)
        let unpaired = try await AttuneProcess.run(["unpair", Self.sampleRPA], store: store)
        #expect(unpaired.status == 0, "\(unpaired.stderr)")
        let left = try await AttuneProcess.run(["bonds"], store: store)
        #expect(left.stdoutLines.count == 1 && left.stdoutLines.first?.hasPrefix(Self.address) == true, "\(left.stdout)")
    }

    /// A record filed under an identifier its address does not make was listed, but an
    /// unpair cleared another record and said it had succeeded. It is now set aside at
    /// load as corrupt, naming the field, and never listed as a bond.
    @Test("a record under a foreign identifier is set aside, never a bond that unpair claims to remove")
    func recordUnderAForeignIdentifierIsSetAside() async throws {
        let store = try Self.emptyStore()
        defer { try? FileManager.default.removeItem(atPath: store) }
        try Self.writeRecord(in: store, address: Self.address, type: 1, identifier: "61747475-6E65-8001-8000-F0A77E000009")
        let listed = try await AttuneProcess.run(["bonds"], store: store)
        let unpaired = try await AttuneProcess.run(["unpair", Self.address], store: store)
        let after = try await AttuneProcess.run(["bonds"], store: store)
        #expect(!(unpaired.status == 0 && !after.stdoutLines.isEmpty), "unpair succeeded, yet: \(after.stdout)")
        #expect(listed.stdoutLines.isEmpty && listed.stderr.contains("bad field identifier"), "\(listed.stdout) \(listed.stderr)")
        #expect(unpaired.status == 1 && unpaired.stderr.contains("no bond with \(Self.address)"), "\(unpaired.stderr)")
    }
}
