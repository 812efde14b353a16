/// Where one device's lease stands, as ``DeviceLease/standing(at:)`` reports it.
public enum LeaseStanding: Hashable, Sendable {
    /// This gateway owns it.
    case mine
    /// This gateway claimed it and waits for the claim to settle.
    case claiming
    /// Another gateway holds a valid lease.
    case heldBy(String, until: Double)
    /// The holder's lease ran out or its status is offline: a gateway that hears the
    /// device takes it over.
    case lapsed(String)
    /// Nobody holds it.
    case free
}
