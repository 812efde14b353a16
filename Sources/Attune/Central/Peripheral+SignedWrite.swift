import Transport

/// Signed writes (Signed Write Command, Vol 3 Part G §4.9.2, signed as Vol 3 Part H
/// §2.4.5 says): how Core Bluetooth writes without response to a characteristic that only
/// takes authenticated signed writes. On an unencrypted link the command is signed with the
/// CSRK we distributed when we bonded; on an encrypted one the engine sends a plain Write
/// Command, as the spec has it.
///
/// The sign counter lives in the store. Every signed write reserves one counter there
/// (the bond's ``Bond/localSignCounter`` goes up by one, durably) before it is issued, and
/// the engine starts each link at the stored value and advances by one per command it
/// sends. A link therefore never uses more counters than it reserved, so a later link or
/// process, starting from the stored value, never signs with a counter already used. A
/// write that fails before it is sent leaves a gap, which the spec allows (the peer only
/// wants counters to grow).
extension Peripheral {
    func signedWrite(_ value: [UInt8], for characteristic: Characteristic) async throws(AttuneError) {
        let maximum = mtu - 15
        guard value.count <= maximum else { throw .invalidValueLength(value.count, maximum: maximum) }
        await readyToSendWriteWithoutResponse()
        guard lifecycle.connectionState == .connected, let encrypted = connection?.client.linkEncrypted else {
            throw .notConnected
        }
        if !encrypted {
            let reserved = try reserveSignCounter(for: characteristic)
            // A link's first signed write (or one after pairing again with a new CSRK)
            // starts the engine at the stored counter; later ones let it count on.
            if connection?.client.configuration.signingKey?.csrk != reserved.csrk {
                connection?.client.setSigningKey(SigningKey(csrk: reserved.csrk, signCounter: reserved.counter))
            }
        }
        _ = try await request(.signedWriteWithoutResponse(characteristic.valueHandle, value))
    }

    /// Takes the next sign counter from the bond in the store, saving the one after it
    /// before anything is sent.
    private func reserveSignCounter(for characteristic: Characteristic) throws(AttuneError) -> (csrk: [UInt8], counter: UInt32) {
        guard let bond = store.record(for: identifier)?.bond, let key = bond.localSignatureKey, key.count == 16 else {
            throw .securityUnavailable("characteristic \(characteristic.uuid) takes only signed writes on an unencrypted "
                + "link, and there is no bond with a signing key (CSRK) of ours: pair with the peripheral first")
        }
        var reserved: UInt32?
        do {
            try store.update(address: address, type: addressType) { record in
                // Read again inside the one-step update: another writer may have moved it.
                guard let current = record.bond, current.localSignatureKey == key,
                      current.localSignCounter < UInt32.max else { return }
                reserved = current.localSignCounter
                record.bond?.localSignCounter = current.localSignCounter + 1
            }
        } catch {
            throw .securityFailed("the sign counter could not be saved, so the write was not signed: \(error)")
        }
        guard let reserved else {
            // 2^32 − 1 writes, or the bond went away meanwhile: the key is spent.
            throw .securityFailed("the bond's signing key has no sign counter left (or was removed): pair again")
        }
        return (key, reserved)
    }
}
