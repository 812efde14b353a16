import BluetoothCore

/// What a test does next, decided from its transcript.
enum ProcedureStep: Sendable {
    /// Send a request and wait for its response (or the 30 s transaction timeout).
    case request([UInt8])
    /// Send a command or a confirmation; nothing answers it, so the test goes on at once.
    case command([UInt8])
    /// Wait (the configured push timeout) for a notification (or an indication, when `indication`) of `handle`.
    case awaitPush(AttributeHandle, indication: Bool)
    /// Keep waiting for the IUT's next PDU, under a fresh transaction timeout: a test
    /// that sent more than one request waits for the answers still owed.
    case awaitResponse
    /// The test is over.
    case finish(ConformanceTestVerdict)
}
