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
    /// Every test ended; the link may be closed.
    case finished
}
