import BluetoothCrypto

extension SecurityManager {
    /// Uses each libcrypto primitive a pairing needs once in this process: a P-256 key
    /// pair and an ECDH, AES-CMAC (f4, f5, f6) and AES-128 (e, ah, c1). Their first use
    /// sets libcrypto up (its private random generator, the curve, the algorithm fetches),
    /// which takes milliseconds; a pairing that pays it does so between the Pairing
    /// Response and its Public Key, on the peer's clock. Call it where nothing waits,
    /// before the first pairing. Nothing is kept: every pairing still makes its own key pair.
    public static func prepareCrypto() {
        _ = prepared
    }

    /// Once per process (a lazily initialised static).
    private static let prepared: Void = {
        guard let ours = try? P256.generateKeyPair(), let theirs = try? P256.generateKeyPair() else { return }
        _ = try? P256.sharedSecret(privateKey: ours.privateKey, peer: theirs.publicKey)
        let zero = [UInt8](repeating: 0, count: 16)
        _ = try? SecurityFunctions.f4(u: ours.publicKey.x, v: theirs.publicKey.x, x: zero, z: 0)
        _ = try? SecurityFunctions.e(key: zero, plaintext: zero)
    }()
}
