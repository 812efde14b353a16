/// The link is up; the GATT engine's start-up runs until `ready`.
struct ConnectedState: Hashable, Sendable {
    /// `connected`, one of the GATT start-up phases the engine reported, or `ready`.
    var phase: LifecyclePhase
    var applicationWaiting: Bool
}
