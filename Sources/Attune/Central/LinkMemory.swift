/// What a ``Peripheral`` keeps between links: the GATT cache the next link checks
/// through the Database Hash, and the subscriptions it restores.
///
/// While a link is up, its engine (``GATTClient``) owns the subscriptions: they are
/// handed to it when the link comes up and taken back when it goes down, so there is
/// one holder at any time. The store keeps a copy of both across processes.
struct LinkMemory: Sendable {
    /// The peer's database as last discovered or confirmed.
    var cache: GATTCache?
    /// Subscriptions waiting for the next link (empty while a link holds them).
    var subscriptions: [Subscription]
}
