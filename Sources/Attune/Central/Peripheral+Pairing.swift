import Transport

extension Peripheral {
    /// Pairs with the connected peripheral now, even when automatic pairing is off
    /// (``PairingConfiguration/automatic``), and returns once the link is encrypted with
    /// the new key and the keys are distributed, so the bond is stored on both sides (on
    /// the kernel transport, once the kernel reports the link encrypted). Requests for the
    /// user go to the central's ``PairingAgent``.
    ///
    /// - Returns: how the link is secured: authenticated unless the pairing was Just
    ///   Works, LE Secure Connections or legacy, and the key size.
    /// - Throws: ``AttuneError/notConnected``; ``AttuneError/securityFailed(_:)`` with the
    ///   Pairing Failed reason (Passkey Entry Failed, Confirm Value Failed, Numeric
    ///   Comparison Failed…), the SMP timeout, or the HCI status when encryption failed;
    ///   ``AttuneError/securityUnavailable(_:)`` where the transport cannot pair.
    @discardableResult
    public func pair() async throws(AttuneError) -> LinkSecurity {
        guard let link else { throw .notConnected }
        try await link.pair()
        // The engine's own retry would mark this; an explicit pairing must too, so a
        // later security error is reported as one an encrypted link still got.
        if connection != nil { connection?.setLinkEncrypted(true) }
        return link.security
    }

    /// How the link is secured now (`.none` when not connected or not encrypted).
    public var linkSecurity: LinkSecurity { link?.security ?? .none }
}
