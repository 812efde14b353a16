import BluetoothCore

/// What the tester asks of whoever drives it.
public enum TesterAction: Hashable, Sendable {
    /// Send this ATT PDU to the IUT.
    case send([UInt8])
    /// Call ``ServerConformanceTester/tick(at:)`` at this time unless a PDU comes first;
    /// replaces any earlier wake-up.
    case wake(at: MonotonicTime)
    /// A test ended.
    case report(ConformanceTestReport)
    /// Close the link and open a new one to the IUT, then call
    /// ``ServerConformanceTester/linkRestored(at:)`` (or
    /// ``ServerConformanceTester/linkClosed(at:reason:)`` when none can be opened). Asked
    /// for after a lost link or a transaction timeout, so the run goes on with the next test.
    case restartLink(reason: String)
    /// Every test ended; the link may be closed.
    case finished
}
