/// The one connection being initiated (controllers initiate one at a time).
struct PendingConnection: Sendable {
    var id: HostRequestID
    var deadline: MonotonicTime
    var ownAddressType: OwnAddressType
    /// Set once LE Create Connection Cancel is on its way: why the attempt ends.
    var cancellation: HostError?
    /// Set when the controller accepted the cancel. The spec promises an LE Connection
    /// Complete (Unknown Connection Identifier) next; some controllers, Bumble's emulated
    /// one among them, never send it, so the attempt also ends when this passes.
    var cancelGraceDeadline: MonotonicTime?
}
