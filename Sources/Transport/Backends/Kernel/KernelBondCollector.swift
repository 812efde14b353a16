import HCI
import SMP

/// Turns the keys the kernel hands out after a pairing (New IRK, New CSRK, then New LTK,
/// the order the kernel's SMP reports them in) into the ``PairingKeys`` a ``BondKeeper``
/// stores: the IRK and CSRK wait for the LTK of the same peer, which completes the bond.
///
/// Keys the kernel hints should not be kept (no bonding, or a peer without an identity)
/// are dropped. For LE legacy pairing the kernel reports one LTK per direction; only the
/// one for our role on the link is kept (a bond holds one), when that role is known.
struct KernelBondCollector {
    private struct Partial {
        var identityResolvingKey: KernelIdentityResolvingKey?
        var signatureKey: KernelSignatureKey?
        var localSignatureKey: KernelSignatureKey?
    }
    /// Keyed by the peer's identity (the kernel names it so once the IRK is in).
    private var partial: [KernelPeer: Partial] = [:]
    /// A bound on peers waiting for their LTK: a kernel reporting IRKs without end
    /// cannot grow this without bound.
    static let capacity = 64

    /// Takes one key; returns the bond it completes, if any. `role` tells our role on
    /// the link to a peer address (the identity or the address the link was made with).
    mutating func add(_ key: KernelPairingKey, role: (BluetoothAddress) -> PairingKeys.Role?) -> PairingKeys? {
        switch key {
        case .identityResolvingKey(let irk):
            guard irk.storeHint else { return nil }
            update(irk.peer) { $0.identityResolvingKey = irk }
            return nil
        case .signatureKey(let csrk):
            // The peer's key checks what it signs; ours signs what our GATT client writes
            // over the kernel's ATT socket (the kernel does not sign for us).
            guard csrk.storeHint else { return nil }
            update(csrk.peer) { partial in
                if csrk.kind.isLocal { partial.localSignatureKey = csrk } else { partial.signatureKey = csrk }
            }
            return nil
        case .longTermKey(let ltk):
            guard ltk.storeHint else { return nil }
            let known = partial[ltk.peer]
            let linkAddress = known?.identityResolvingKey?.resolvedAddress ?? ltk.peer.address
            let ourRole = role(linkAddress) ?? role(ltk.peer.address)
            let keyRole: PairingKeys.Role
            if ltk.type.isSecureConnections {
                keyRole = ourRole ?? .central
            } else {
                // Legacy: Central set means the key encrypts links where we are central
                // (the peer's distributed LTK); the other is ours, used as peripheral.
                keyRole = ltk.central ? .central : .peripheral
                if let ourRole, ourRole != keyRole { return nil }
            }
            partial[ltk.peer] = nil
            return Self.pairingKeys(ltk, role: keyRole, irk: known?.identityResolvingKey, csrk: known?.signatureKey,
                                   localCSRK: known?.localSignatureKey)
        }
    }

    private mutating func update(_ peer: KernelPeer, _ change: (inout Partial) -> Void) {
        if partial[peer] == nil, partial.count >= Self.capacity, let any = partial.keys.first {
            // Full: drop one peer's waiting keys (a real kernel never gets here).
            partial[any] = nil
        }
        change(&partial[peer, default: Partial()])
    }

    /// The bond for a kernel LTK and the IRK and CSRK that came with it.
    static func pairingKeys(_ ltk: KernelLongTermKey, role: PairingKeys.Role, irk: KernelIdentityResolvingKey?,
                            csrk: KernelSignatureKey?, localCSRK: KernelSignatureKey? = nil) -> PairingKeys {
        let identityType = ltk.peer.addressType.bluetoothAddressType
        return PairingKeys(role: role,
                           peerAddress: irk?.resolvedAddress ?? ltk.peer.address,
                           peerAddressType: irk?.resolvedAddress == nil ? identityType : .random,
                           identityAddress: irk.map { _ in ltk.peer.address },
                           identityAddressType: irk.map { _ in identityType },
                           longTermKey: ltk.value.bytes, encryptedDiversifier: ltk.encryptedDiversifier, random: ltk.random,
                           identityResolvingKey: irk?.value.bytes, signatureKey: csrk?.value.bytes,
                           localSignatureKey: localCSRK?.value.bytes,
                           keySize: Int(ltk.encryptionSize), isAuthenticated: ltk.type.isAuthenticated,
                           isSecureConnections: ltk.type.isSecureConnections)
    }
}

/// Stored bonds as the kernel loads them (Load Long Term Keys, Load IRKs).
enum KernelStoredKeys {
    /// The LTKs and IRKs for `bonds` on the adapter `index`, under each peer's identity.
    /// A bond that does not say which role it was made in gets its legacy LTK in both
    /// directions: the kernel only uses the one whose role (and EDIV/Rand) fits a link.
    static func keys(for bonds: [PairingKeys], adapterIndex index: UInt16)
        -> (longTermKeys: [KernelLongTermKey], identityResolvingKeys: [KernelIdentityResolvingKey]) {
        var ltks: [KernelLongTermKey] = [], irks: [KernelIdentityResolvingKey] = []
        for bond in bonds {
            guard let value = SMPKey(bond.longTermKey), let size = UInt8(exactly: bond.keySize) else { continue }
            let address = bond.identityAddress ?? bond.peerAddress
            let addressType = bond.identityAddress == nil ? bond.peerAddressType : (bond.identityAddressType ?? .random)
            let peer = KernelPeer(adapterIndex: index, address: address,
                                  addressType: addressType == .public ? .lePublic : .leRandom)
            let type: KernelLongTermKey.KeyType = switch (bond.isSecureConnections, bond.isAuthenticated) {
            case (true, true): .authenticatedP256
            case (true, false): .unauthenticatedP256
            case (false, true): .authenticatedLegacy
            case (false, false): .unauthenticatedLegacy
            }
            let directions = bond.isSecureConnections ? [false] : [true, false]
            for central in directions {
                ltks.append(KernelLongTermKey(peer: peer, type: type, central: central, encryptionSize: size,
                                              encryptedDiversifier: bond.encryptedDiversifier, random: bond.random, value: value))
            }
            if let irk = bond.identityResolvingKey.flatMap(SMPKey.init), bond.identityAddress != nil {
                irks.append(KernelIdentityResolvingKey(peer: peer, value: irk))
            }
        }
        return (ltks, irks)
    }
}

extension KernelPeer.AddressType {
    /// The HCI address type (BR/EDR addresses are public).
    var bluetoothAddressType: BluetoothAddressType { self == .leRandom ? .random : .public }
}
