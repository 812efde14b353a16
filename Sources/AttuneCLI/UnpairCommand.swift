import Attune

/// `attune unpair ADDR`: forgets the bond with a peer.
enum UnpairCommand: CLICommand {
    static let name = "unpair"
    static let summary = "forget the bond with a peer (its keys leave the store, and the kernel's with --transport hciN)"
    static let usage = """
        usage: attune unpair ADDR [--transport hciN]

        Removes the bond with ADDR from the store: every record of that peer, found by its
        address, the identity address it distributed, or a resolvable private address
        its IRK resolves; each record keeps its GATT cache. The next connection is
        unencrypted until it pairs again. On the kernel transport (hciN, the default)
        the kernel forgets its keys too (mgmt Unpair Device, which also disconnects the
        peer). The peer keeps its own half: remove us there too, or it may refuse to pair
        anew.

        Exit status 0 only when the store, read back from disk, holds no bond of the peer
        and no copy can remain elsewhere; 1 when no bond names ADDR, or when a copy may
        remain: the kernel's, when it could not be asked (run with CAP_NET_ADMIN), or
        bluetoothd's, which keeps its own (bluetoothctl remove ADDR).
        """
    static let options: Set<String> = ["transport"]

    static func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.count == 1 else { throw CLIError.usage("give ADDR") }
        let address = try CentralContext.address(arguments.positionals[0])
        let store: FileStore
        do { store = try FileStore() } catch { throw CLIError.failure("\(error)") }
        for problem in store.problems { Output.status("warning: \(problem)") }
        let matching = store.bondedRecords(of: address)
        guard !matching.isEmpty else { throw CLIError.failure("no bond with \(address) in \(store.directory)") }
        let transport = try TransportOption.parse(arguments.option("transport"))
        // What may still hold keys outside the store, said once the store is checked.
        var leftElsewhere: [String] = []
        if let transport, case .kernel = transport {
            // The manager removes the store's copy and has the kernel forget its own.
            let central = CentralManager(transport: transport, store: store)
            for record in matching {
                do {
                    let removal = try await central.removeBond(identifier: record.identifier)
                    if let removal, !removal.isComplete {
                        leftElsewhere.append("\(record.address) (\(record.addressType)): \(removal)")
                    } else {
                        Output.status("removed the bond with \(record.address) (\(record.addressType))"
                                      + (removal.map { "; \($0)" } ?? ""))
                    }
                } catch {
                    throw CLIError.failure("\(error)")
                }
            }
        } else {
            for record in matching {
                do { try store.update(address: record.address, type: record.addressType) { $0.bond = nil } } catch {
                    throw CLIError.failure("\(error)")
                }
                Output.status("removed the bond with \(record.address) (\(record.addressType))")
            }
        }
        try verifyGone(matching, address: address, directory: store.directory)
        guard leftElsewhere.isEmpty else {
            throw CLIError.failure("the store no longer holds the bond, but a copy may remain elsewhere: "
                                   + leftElsewhere.joined(separator: "; "))
        }
        return 0
    }

    /// Success is what a fresh read of the store shows, not what this process believes:
    /// a record the write missed (or another writer restored) still holds the bond.
    static func verifyGone(_ removed: [PeripheralRecord], address: BluetoothAddress, directory: String) throws(CLIError) {
        let reread: FileStore
        do { reread = try FileStore(directory: directory) } catch { throw .failure("\(error)") }
        let ids = Set(removed.map(\.identifier))
        let left = reread.records().filter { $0.bond != nil && ids.contains($0.identifier) } + reread.bondedRecords(of: address)
        guard left.isEmpty else {
            let files = Set(left.map { "\(directory)/\($0.identifier.uuidString).json" }).sorted()
            throw .failure("the bond with \(address) is still in the store after removing it: " + files.joined(separator: ", "))
        }
    }
}
