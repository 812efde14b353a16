import InteropTestSupport
import Testing

/// The flood suites, one at a time, and never beside another target's floods
/// (``FloodTurn``): each keeps a core busy for seconds, and two at once beside the rest
/// of the suite starved unrelated tests past their time limits.
@Suite("Floods, one at a time", .serialized, FloodTurn())
enum Floods {}
