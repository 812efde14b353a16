import Transport

extension Store {
    /// Every bonded record of the peer known by `address`: the record at that address,
    /// those whose bond names it as the identity address, those whose IRK resolves it (a
    /// resolvable private address), and then every record of the same peer under another
    /// address (sharing its identity address or IRK). A peer bonded once as central (at
    /// the address it advertised) and once as peripheral (at its identity) has two, and
    /// forgetting it must forget both.
    public func bondedRecords(of address: BluetoothAddress) -> [PeripheralRecord] {
        let bonded = records().filter { $0.bond != nil }
        let resolvable = ResolvablePrivateAddress.isResolvable(address, type: .random)
        let direct = bonded.filter { record in
            guard let bond = record.bond else { return false }
            if record.address == address || bond.identityAddress == address { return true }
            return resolvable && (bond.identityResolvingKey.map { ResolvablePrivateAddress.resolves(address, with: $0) } ?? false)
        }
        let identities = Set(direct.flatMap { [$0.bond?.identityAddress].compactMap { $0 } })
        let keys = Set(direct.compactMap { $0.bond?.identityResolvingKey })
        let directIDs = Set(direct.map(\.identifier))
        return bonded.filter { record in
            directIDs.contains(record.identifier) || identities.contains(record.address)
                || (record.bond?.identityAddress).map(identities.contains) == true
                || (record.bond?.identityResolvingKey).map(keys.contains) == true
        }
    }
}
