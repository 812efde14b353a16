import ATT

extension ATTLink {
    /// Transports without a pairing policy of their own pair the same way either way.
    package func pair() async throws(AttuneError) { try await raiseSecurity() }

    /// Transports that report no link security: the server sees every link unencrypted
    /// (the kernel transport's own security is the kernel's to enforce).
    package var security: LinkSecurity { .none }
}
