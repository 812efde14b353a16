import Attune

/// The gateway's machines run on the public API's clock: the same continuous time base
/// as the central's deadlines. (`ts` of published values is wall-clock, read apart.)
typealias GatewayClock = MonotonicClock
