/// What the host asks its I/O edge to do. The host never does I/O itself.
public enum HostAction: Sendable {
    /// Write one whole H4 packet (indicator byte first) to the controller.
    case send([UInt8])
    /// Hand an event to the application.
    case deliver(HostEvent)
    /// A request finished.
    case complete(HostRequestID, Result<HostCompletion, HostError>)
    /// Call `tick(at:)` no later than this instant.
    case schedule(ContinuousClock.Instant)
    /// The host cannot go on: end the transport. Every connection is gone.
    case close(HostError)
}
