import HCI

/// What a backend asks of the managers' store about security: our identity, the bonds
/// it encrypts links with, and where a completed pairing goes. Lookups are called on the
/// host's own thread, so they answer from memory and never wait.
public protocol BondKeeper: Sendable {
    /// Our identity, loaded from the store or made once and kept there.
    func hostIdentity() -> HostIdentity
    /// The bond with the peer at this address (or whose identity it resolves to), for a
    /// link where we play `role`.
    func bond(for address: BluetoothAddress, type: BluetoothAddressType, role: PairingKeys.Role) -> PairingKeys?
    /// A pairing completed: keep its keys. Returns at once (saving may run later).
    func paired(_ keys: PairingKeys)
    /// A link to a bonded peer did not encrypt with the stored key (the peer answered
    /// PIN or Key Missing, say). Nothing is removed: the next pairing replaces the bond.
    func bondFailed(for address: BluetoothAddress, type: BluetoothAddressType, _ error: AttuneError)
    /// Every stored bond, for a transport that hands them to another Security Manager on
    /// start (the kernel's, when no bluetoothd owns its keys).
    func allBonds() -> [PairingKeys]
}

extension BondKeeper {
    /// None: a keeper that cannot list its bonds gives the kernel nothing to load.
    public func allBonds() -> [PairingKeys] { [] }
}
