import BluetoothCore

/// One ATT PDU a verdict rests on: raw ATT bytes (opcode first, no L2CAP or HCI
/// header) and which side sent it.
public struct ExchangedPDU: Hashable, Sendable, CustomStringConvertible {
    /// Which way a PDU went between the lower tester and the IUT.
    public enum Direction: String, Hashable, Sendable {
        case testerToIUT = "tester->iut"
        case iutToTester = "iut->tester"
    }

    public var direction: Direction
    public var bytes: [UInt8]

    public init(_ direction: Direction, _ bytes: [UInt8]) {
        self.direction = direction
        self.bytes = bytes
    }

    /// The bytes in lower-case hex, opcode first.
    public var hex: String { hexString(bytes, empty: "") }

    public var description: String { "\(direction.rawValue) \(hex)" }
}
