/// A 128-bit key (LTK, STK, IRK, CSRK, a BR/EDR link key), least significant octet first.
///
/// Its `description` and `debugDescription` print "<redacted>", so logging a key, or any
/// value that holds one, never leaks it.
public struct SMPKey: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The 16 octets, least significant first (the order PDUs and HCI carry).
    public let bytes: [UInt8]

    /// Nil unless `bytes` has exactly 16 octets.
    public init?(_ bytes: some Collection<UInt8>) {
        guard bytes.count == 16 else { return nil }
        self.bytes = Array(bytes)
    }

    /// For values already known to be 16 octets.
    init(exactly bytes: [UInt8]) {
        precondition(bytes.count == 16)
        self.bytes = bytes
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
}
