/// A value handed to the application that can say how many of its kind were dropped
/// just before it, because the application did not keep up.
public protocol LossReporting: Sendable {
    /// Values of the same stream lost immediately before this one; 0 when none were.
    var lostBefore: Int { get set }
}
