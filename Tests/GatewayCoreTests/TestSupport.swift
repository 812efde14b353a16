import BluetoothCore
@testable import GatewayCore

/// `s` seconds after the origin.
func t(_ s: Double) -> MonotonicTime { .seconds(s) }

/// A generator whose every fraction is `fraction`: 0.5 makes jitter exactly zero.
struct FixedRandom: RandomNumberGenerator, Sendable {
    var fraction: Double
    mutating func next() -> UInt64 { UInt64(fraction * 0x1p53) << 11 }
}

extension GatewayStep {
    /// The step's actions, for short expectations.
    var a: [Action] { actions }
}

/// A scheduler with one adapter's defaults and no jitter.
func scheduler(max: Int = 5, random: Double = 0.5) -> ConnectionScheduler {
    ConnectionScheduler(configuration: SchedulerConfiguration(maxConnections: max), random: FixedRandom(fraction: random))
}

/// `d` in seconds.
func secs(_ d: Duration) -> Double {
    let (s, atto) = d.components
    return Double(s) + Double(atto) / 1e18
}

/// The time an idle device may next try, from its report.
func retryAt(_ s: ConnectionScheduler, _ d: DeviceID) -> MonotonicTime? {
    if case .at(let time) = s.report(for: d)?.retry { return time }
    return nil
}

/// Close enough for times built from Doubles.
func near(_ a: MonotonicTime?, _ b: Double, within: Double = 1e-6) -> Bool {
    guard let a else { return false }
    return abs(Double(a.nanoseconds) / 1e9 - b) <= within
}
