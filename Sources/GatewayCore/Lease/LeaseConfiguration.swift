/// The timing of a ``DeviceLease``, in seconds.
public struct LeaseConfiguration: Hashable, Sendable {
    /// How far ahead each claim or renewal sets `until`.
    public var duration: Double
    /// An owner renews this often (well inside `duration`, so one lost renewal is harmless).
    public var renewEvery: Double
    /// A claim waits this long for a competing claim before it counts as won.
    public var settle: Double

    /// A 30 s lease renewed every 10 s, claims settling in 2 s.
    public init(duration: Double = 30, renewEvery: Double = 10, settle: Double = 2) {
        let d = duration.isFinite ? max(1, duration) : 30
        self.duration = d
        self.renewEvery = renewEvery.isFinite ? min(d, max(0.1, renewEvery)) : d / 3
        self.settle = settle.isFinite ? min(d, max(0, settle)) : 2
    }
}
