/// No link, and none being made.
struct DisconnectedState: Hashable, Sendable {}
