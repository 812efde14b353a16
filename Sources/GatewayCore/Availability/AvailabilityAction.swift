/// An availability change to publish (retained) on `attune/dev/<name>/availability`.
/// Each is emitted once per change, never repeated.
public enum AvailabilityAction: Hashable, Sendable {
    case online(DeviceID)
    case offline(DeviceID)
}
