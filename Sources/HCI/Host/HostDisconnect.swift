/// Where a connection stands in being ended from our side. One value holds it all, so
/// "a disconnect is pending" and "the host is ending the link itself" cannot disagree.
///
/// HCI Disconnect overtakes ACL data: the controller takes the command at once, while
/// ACL waits for its buffers, and a link's queued data is flushed when the link goes.
/// So the last ATT response or Error Response sent just before a disconnect would be
/// lost. A requested disconnect first drains the link: its queued ACL goes out as
/// buffers allow, and the Disconnect follows once the controller has completed all of it
/// (Number Of Completed Packets), or at the drain limit, when the loss is reported.
enum HostDisconnect: Hashable, Sendable {
    /// Nobody has asked to end the link.
    case live
    /// The application asked to end the link with `reason`; ACL of the link is still
    /// queued or not yet completed by the controller. At `deadline` the host stops
    /// waiting for it.
    case draining(HostRequestID, reason: UInt8, deadline: MonotonicTime)
    /// HCI Disconnect is queued or sent; Disconnection Complete ends the link. The
    /// request it completes, if any: nil when the host ends the link on its own
    /// (a peer that broke ATT's sequence) and the application has not asked since.
    case commanded(HostRequestID?)

    /// What happens to the link.
    enum Input: Hashable, Sendable {
        /// The application asks to end the link (``HostRequest/disconnect(handle:reason:)``).
        case requested(HostRequestID, reason: UInt8, deadline: MonotonicTime)
        /// The peer broke ATT's sequence: the host ends the link at once, with Remote
        /// User Terminated Connection, and owes such a peer no queued data.
        case peerBrokeATT
        /// The host looked at the link's ACL: `idle` when nothing of it is queued or
        /// waiting for Number Of Completed Packets.
        case checked(idle: Bool, at: MonotonicTime)
        /// The controller refused the Disconnect (Command Status or Disconnection
        /// Complete with an error status): the link stays up.
        case commandFailed(HCIStatus)
    }

    /// What the host does about a transition.
    enum Step: Hashable, Sendable {
        case nothing
        /// Refuse the new request: another is already ending the link.
        case busy
        /// Send HCI Disconnect with this reason.
        case disconnect(reason: UInt8)
        /// Send HCI Disconnect with this reason though the link's ACL is not all
        /// completed: the drain limit passed. What is left is lost, and reported.
        case disconnectAbandoningData(reason: UInt8)
        /// The request failed with the controller's refusal.
        case fail(HostRequestID, HCIStatus)
    }

    /// Remote User Terminated Connection, the reason the host gives a peer that broke ATT.
    static let peerBrokeATTReason: UInt8 = 0x13

    /// The request waiting for Disconnection Complete, if any.
    var requestID: HostRequestID? {
        switch self {
        case .live: nil
        case .draining(let id, _, _): id
        case .commanded(let id): id
        }
    }

    /// Whether the link takes new data: not once anyone is ending it, since data queued
    /// after the Disconnect would be flushed with the link.
    var takesData: Bool { self == .live }

    /// Moves to the next state and says what to do.
    mutating func on(_ input: Input) -> Step {
        switch (self, input) {
        case (.live, .requested(let id, let reason, let deadline)):
            // The next check sends the Disconnect at once if the link is already idle.
            self = .draining(id, reason: reason, deadline: deadline)
            return .nothing
        case (.commanded(nil), .requested(let id, _, _)):
            // The host is already ending the link: the request completes with that Disconnect.
            self = .commanded(id)
            return .nothing
        case (.draining, .requested), (.commanded, .requested):
            return .busy

        case (.live, .peerBrokeATT):
            self = .commanded(nil)
            return .disconnect(reason: Self.peerBrokeATTReason)
        case (.draining(let id, _, _), .peerBrokeATT):
            self = .commanded(id)
            return .disconnect(reason: Self.peerBrokeATTReason)
        case (.commanded, .peerBrokeATT):
            return .nothing

        case (.draining(let id, let reason, _), .checked(idle: true, _)):
            self = .commanded(id)
            return .disconnect(reason: reason)
        case (.draining(let id, let reason, let deadline), .checked(idle: false, let now)) where deadline <= now:
            self = .commanded(id)
            return .disconnectAbandoningData(reason: reason)
        case (_, .checked):
            return .nothing

        case (.commanded(let id), .commandFailed(let status)):
            self = .live
            return id.map { .fail($0, status) } ?? .nothing
        case (.live, .commandFailed), (.draining, .commandFailed):
            // Not our command: nothing was sent for this link.
            return .nothing
        }
    }
}
