/// Where this gateway stands on one device's lease. Each state is a struct of its own.
enum LeaseState: Hashable, Sendable {
    case watching(WatchingLease)
    case claiming(ClaimingLease)
    case owning(OwningLease)
}

/// Someone else owns it, or nobody does and we cannot serve it.
struct WatchingLease: Hashable, Sendable {}

/// We published a claim and wait for a competing one.
struct ClaimingLease: Hashable, Sendable {
    var until: Double
    /// The claim is won at this time unless a lower id claims too.
    var settleAt: Double
}

/// We own it and renew.
struct OwningLease: Hashable, Sendable {
    var until: Double
    var renewAt: Double
}
