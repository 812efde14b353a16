import ATTPresentation
import Attune

/// `attune bonds`: the peers this host bonded with, from the store. Never a key.
enum BondsCommand: CLICommand {
    static let name = "bonds"
    static let summary = "list the bonded peers kept in the store (never their keys)"
    static let usage = """
        usage: attune bonds [--json]

        Lists the peers the userland host bonded with, one per line: address and type,
        the identity address the peer distributed, the key size, whether the pairing was
        authenticated (MITM) and whether it was LE Secure Connections. Keys are never
        printed. The store is $ATTUNE_STORE, else ~/.local/state/attune (root:
        /var/lib/attune); its files are mode 0600.

          --json         [{"address", "type", "identity", "keySize", "authenticated", "secureConnections"}]
        """
    static let flags: Set<String> = ["json"]

    static func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.isEmpty else { throw CLIError.usage("bonds takes no arguments") }
        let store: FileStore
        do { store = try FileStore() } catch { throw CLIError.failure("\(error)") }
        for problem in store.problems { Output.status("warning: \(problem)") }
        let bonded = store.records().compactMap { record in record.bond.map { (record, $0) } }
        if arguments.flag("json") {
            Output.data(JSONValue.array(bonded.map { record, bond in
                .object([("address", .string(record.address.description)), ("type", .string(record.addressType.description)),
                         ("identity", bond.identityAddress.map { .string($0.description) } ?? .null),
                         ("keySize", .int(bond.keySize)), ("authenticated", .bool(bond.isAuthenticated)),
                         ("secureConnections", .bool(bond.isSecureConnections))])
            }).description)
        } else {
            for (record, bond) in bonded {
                Output.data("\(record.address) (\(record.addressType))"
                            + (bond.identityAddress.map { " identity \($0)" } ?? "")
                            + " key size \(bond.keySize), \(bond.isAuthenticated ? "authenticated" : "unauthenticated"), "
                            + (bond.isSecureConnections ? "Secure Connections" : "legacy")
                            // The name came from the peer: no control character reaches the terminal.
                            + (record.name.map { ", \"\(PeerText.escaped($0))\"" } ?? ""))
            }
            Output.status("\(bonded.count) bonded peer\(bonded.count == 1 ? "" : "s") in \(store.directory)")
        }
        return 0
    }
}
