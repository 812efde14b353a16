import Foundation
import Testing

/// `attune bonds` and `attune unpair` over a store written as the library writes it.
@Suite("attune bonds and unpair")
struct BondsCommandTests {
    static let address = "F0:A7:7E:00:00:01"
    /// The key bytes; their hex must never reach the output.
    static let ltk = Array(repeating: 0xAB, count: 16), irk = Array(repeating: 0xCD, count: 16)

    /// A store directory holding one bonded record (identifier as PeripheralIdentifier makes it).
    static func store() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("attune-bonds-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let identifier = "61747475-6E65-8001-8000-F0A77E000001"
        let record = """
            {"identifier": "\(identifier)", "address": "\(address)", "addressType": 1, "name": "Sensor",
             "subscriptions": [], "autoConnect": false,
             "bond": {"longTermKey": \(ltk), "encryptedDiversifier": 0, "random": 0, "identityResolvingKey": \(irk),
                      "keySize": 16, "isAuthenticated": false, "isSecureConnections": true,
                      "identityAddress": "00:1B:DC:01:02:03", "identityAddressType": 0}}
            """
        try Data(record.utf8).write(to: URL(fileURLWithPath: directory + "/" + identifier + ".json"))
        return directory
    }

    @Test("bonds lists address, identity, key size, authentication and SC, never a key; unpair removes it")
    func listAndUnpair() async throws {
        let store = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: store) }
        let listed = try await AttuneProcess.run(["bonds"], store: store)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdoutLines == ["\(Self.address) (random) identity 00:1B:DC:01:02:03 key size 16, unauthenticated, "
                                       + "Secure Connections, \"Sensor\""], "\(listed.stdout)")
        let json = try await AttuneProcess.run(["bonds", "--json"], store: store)
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(parsed.count == 1 && parsed.first?["keySize"] as? Int == 16 && parsed.first?["identity"] as? String == "00:1B:DC:01:02:03")
        for output in [listed.stdout + listed.stderr, json.stdout + json.stderr] {
            #expect(!output.lowercased().contains("abab") && !output.lowercased().contains("cdcd") && !output.contains("171"))
        }

        let unpaired = try await AttuneProcess.run(["unpair", "00:1B:DC:01:02:03"], store: store)
        #expect(unpaired.status == 0, "\(unpaired.stderr)")
        #expect(try await AttuneProcess.run(["bonds"], store: store).stdoutLines.isEmpty)
        let again = try await AttuneProcess.run(["unpair", Self.address], store: store)
        #expect(again.status == 1 && again.stderr.contains("no bond with \(Self.address)"), "\(again.stderr)")
        #expect(try await AttuneProcess.run(["unpair", "nonsense"], store: store).status == 2)
    }

    @Test("--snoop-keys is a global flag of the radio commands that record")
    func snoopKeysFlag() async throws {
        let capture = FileManager.default.temporaryDirectory.appendingPathComponent("attune-keys-\(UUID().uuidString).btsnoop").path
        defer { try? FileManager.default.removeItem(atPath: capture) }
        let read = try await AttuneProcess.run(["--snoop-keys", "read", "C0:00:00:00:00:01", "2a29", "--transport", "memory",
                                                "--snoop", capture])
        #expect(read.status == 0, "\(read.stderr)")
        #expect(try await AttuneProcess.run(["--snoop-keys", "decode", capture]).status == 2, "decode records nothing")
    }
}
