/// Where a client's start-up (``GATTClient/start(bearer:restoring:at:into:)``) is.
public enum GATTStartupPhase: Hashable, Sendable {
    /// Exchanging the ATT_MTU.
    case exchangingMTU
    /// Reading the server's Database Hash to check the cached database, and
    /// rediscovering it when the hash changed.
    case validatingCache
    /// Discovering the whole database.
    case discovering
    /// Writing the CCCDs of the subscriptions handed to `start`.
    case restoringSubscriptions
    /// Done: ``GATTClientEvent/ready(_:)`` was delivered.
    case ready
    /// Start-up discovery failed (``GATTClientEvent/startupFailed(_:)``); the bearer
    /// stays usable for individual commands.
    case failed
}
