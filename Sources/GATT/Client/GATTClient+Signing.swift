extension GATTClient {
    /// The CSRK and sign counter the next Signed Write Command uses (Vol 3 Part H §2.4.5);
    /// the engine advances the counter after each one it sends. The owner sets it when a
    /// bond's key arrives or changes, from the counter it keeps durably.
    public mutating func setSigningKey(_ key: SigningKey?) {
        configuration.signingKey = key
    }
}
