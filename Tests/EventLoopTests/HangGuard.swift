/// How long a test waits for something that must happen before it counts as hung: a
/// guard against a hang, never a way to wait for an event.
let hangGuard: Duration = .seconds(600)
