/// A 48-bit Bluetooth device address (BD_ADDR).
///
/// `bytes` are in the order they travel over HCI and sit in `bdaddr_t`:
/// least-significant byte first. The text form is the usual one,
/// most-significant byte first: `"00:AA:01:00:00:00"`.
public struct BluetoothAddress: Hashable, Sendable, CustomStringConvertible, LosslessStringConvertible {
    /// The six bytes, least-significant first.
    public let bytes: [UInt8]

    /// Creates an address from six bytes, least-significant first; nil for any other count.
    public init?(littleEndianBytes: some Collection<UInt8>) {
        guard littleEndianBytes.count == 6 else { return nil }
        bytes = Array(littleEndianBytes)
    }

    /// Parses `"XX:XX:XX:XX:XX:XX"` (most-significant byte first, either case).
    public init?(_ description: String) {
        let parts = description.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6 else { return nil }
        var bytes: [UInt8] = []
        for part in parts.reversed() {
            guard part.count == 2, let byte = UInt8(part, radix: 16) else { return nil }
            bytes.append(byte)
        }
        self.bytes = bytes
    }

    /// 00:00:00:00:00:00, which the kernel reads as "any local adapter".
    public static let any = BluetoothAddress(littleEndianBytes: [0, 0, 0, 0, 0, 0])!

    public var description: String {
        bytes.reversed().map { byte in
            let hex = String(byte, radix: 16, uppercase: true)
            return byte < 0x10 ? "0" + hex : hex
        }.joined(separator: ":")
    }
}
