import ATT
import Capture

/// Capture timestamps as the monotonic time the engines take: microseconds since the
/// first PDU, saturating, since a damaged capture's timestamps can be anything.
enum ReplayClock {
    static func time(_ timestamp: Int64, since origin: Int64) -> MonotonicTime {
        let (delta, overflow) = timestamp.subtractingReportingOverflow(origin)
        guard !overflow, delta > 0 else { return overflow && timestamp > origin ? .init(nanoseconds: .max) : .zero }
        let (nanos, tooBig) = UInt64(delta).multipliedReportingOverflow(by: 1000)
        return MonotonicTime(nanoseconds: tooBig ? .max : nanos)
    }
}
