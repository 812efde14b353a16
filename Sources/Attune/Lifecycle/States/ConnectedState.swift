/// The link is up; the GATT phases run in order until `ready`.
struct ConnectedState: Hashable, Sendable {
    enum Step: Hashable, Sendable {
        case exchangingMTU
        case validatingCache
        case discovering
        case resubscribing
        case ready
    }

    var step: Step
    /// CCCD writes not yet answered in the `resubscribing` step.
    var pendingResubscriptions: [Subscription] = []
    var applicationWaiting: Bool

    var phase: LifecyclePhase {
        switch step {
        case .exchangingMTU: .exchangingMTU
        case .validatingCache: .validatingCache
        case .discovering: .discovering
        case .resubscribing: .resubscribing
        case .ready: .ready
        }
    }
}
