import Foundation
import Testing

/// Store files as someone other than Attune may have left them: a peer name full of
/// terminal controls, a key size no pairing could agree on.
extension BondsCommandTests {
    /// A record file as the library writes it; `bond` overrides fields of a valid bond.
    static func writeRecord(in directory: String, address: String, type: Int, name: String? = nil,
                            identifier: String? = nil, bond: [String: Any] = [:]) throws {
        let bytes = address.split(separator: ":").map(String.init).joined()
        let made = "61747475-6E65-80\(String(format: "%02X", type))-8000-" + bytes
        var fields: [String: Any] = ["longTermKey": ltk, "encryptedDiversifier": 0, "random": 0, "keySize": 16,
                                     "isAuthenticated": false, "isSecureConnections": true]
        fields.merge(bond) { _, new in new }
        var record: [String: Any] = ["identifier": identifier ?? made, "address": address, "addressType": type,
                                     "subscriptions": [Any](), "autoConnect": false, "bond": fields]
        if let name { record["name"] = name }
        let data = try JSONSerialization.data(withJSONObject: record)
        try data.write(to: URL(fileURLWithPath: directory + "/" + (identifier ?? made) + ".json"))
    }

    static func emptyStore() throws -> String {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("attune-bonds-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test("bonds shows a stored name's ESC, CR and LF as escapes, never raw")
    func nameControlsAreEscaped() async throws {
        let store = try Self.emptyStore()
        defer { try? FileManager.default.removeItem(atPath: store) }
        try Self.writeRecord(in: store, address: Self.address, type: 1, name: "a\u{1B}[2J\r\nF0:00:00:00:00:09 (public) forged")
        let listed = try await AttuneProcess.run(["bonds"], store: store)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(!listed.stdout.contains("\u{1B}") && !listed.stdout.contains("\r"), "\(listed.stdout.debugDescription)")
        #expect(listed.stdoutLines == ["\(Self.address) (random) key size 16, unauthenticated, Secure Connections, "
                                       + "\"a\\x1b[2J\\r\\nF0:00:00:00:00:09 (public) forged\""], "\(listed.stdout.debugDescription)")
    }

    @Test("a key size of -5 (or 17) is refused at load, naming the file and bond.keySize; the good record stays", arguments: [-5, 0, 6, 17])
    func keySizeOutsideItsRangeIsRefused(_ size: Int) async throws {
        let store = try Self.emptyStore()
        defer { try? FileManager.default.removeItem(atPath: store) }
        try Self.writeRecord(in: store, address: Self.address, type: 1)
        try Self.writeRecord(in: store, address: "F0:A7:7E:00:00:02", type: 1, bond: ["keySize": size])
        let listed = try await AttuneProcess.run(["bonds"], store: store)
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdoutLines.count == 1 && listed.stdoutLines.first?.hasPrefix(Self.address) == true, "\(listed.stdout)")
        #expect(listed.stderr.contains("61747475-6E65-8001-8000-F0A77E000002.json")
                && listed.stderr.contains("bond.keySize") && listed.stderr.contains("key size \(size) is outside 7…16"),
                "\(listed.stderr)")
    }
}
