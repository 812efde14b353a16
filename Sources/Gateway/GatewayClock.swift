import BluetoothCore

/// The process's continuous clock as the `MonotonicTime` GatewayCore's machines take, and
/// the wall clock for the `ts` of published values.
struct GatewayClock: Sendable {
    let origin = ContinuousClock.now

    var now: MonotonicTime {
        let (seconds, attoseconds) = (ContinuousClock.now - origin).components
        return MonotonicTime(nanoseconds: UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000))
    }

    func instant(_ time: MonotonicTime) -> ContinuousClock.Instant {
        origin + .nanoseconds(Int64(clamping: time.nanoseconds))
    }
}
