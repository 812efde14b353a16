import Attune

/// `attune unpair ADDR`: forgets the bond with a peer.
enum UnpairCommand: CLICommand {
    static let name = "unpair"
    static let summary = "forget the bond with a peer (its keys leave the store, and the kernel's with --transport hciN)"
    static let usage = """
        usage: attune unpair ADDR [--transport hciN]

        Removes the bond with ADDR (its address or the identity address it distributed)
        from the store; the record keeps its GATT cache. The next connection is
        unencrypted until it pairs again. With --transport hciN (the kernel transport)
        the kernel forgets its keys too (mgmt Unpair Device, which also disconnects the
        peer); beside bluetoothd, bluetoothd keeps its own copy (bluetoothctl remove
        ADDR). The peer keeps its own half: remove us there too, or it may refuse to pair
        anew. Exit status 1 when no bond names ADDR.
        """
    static let options: Set<String> = ["transport"]

    static func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.count == 1 else { throw CLIError.usage("give ADDR") }
        let address = try CentralContext.address(arguments.positionals[0])
        let store: FileStore
        do { store = try FileStore() } catch { throw CLIError.failure("\(error)") }
        let matching = store.records().filter { record in
            record.bond != nil && (record.address == address || record.bond?.identityAddress == address)
        }
        guard !matching.isEmpty else { throw CLIError.failure("no bond with \(address) in \(store.directory)") }
        let transport = try TransportOption.parse(arguments.option("transport"))
        if let transport, case .kernel = transport {
            // The manager removes the store's copy and has the kernel forget its own.
            let central = CentralManager(transport: transport, store: store)
            for record in matching {
                do {
                    let removal = try await central.removeBond(identifier: record.identifier)
                    Output.status("removed the bond with \(record.address) (\(record.addressType))"
                                  + (removal.map { "; \($0)" } ?? ""))
                } catch {
                    throw CLIError.failure("\(error)")
                }
            }
            return 0
        }
        for var record in matching {
            record.bond = nil
            do { try store.save(record) } catch { throw CLIError.failure("\(error)") }
            Output.status("removed the bond with \(record.address) (\(record.addressType))")
        }
        return 0
    }
}
