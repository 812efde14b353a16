/// One HCI event as a raw HCI socket delivers it: event code and parameters.
public struct HCIEventPacket: Hashable, Sendable {
    public var code: UInt8
    public var parameters: [UInt8]

    public init(code: UInt8, parameters: [UInt8]) {
        self.code = code
        self.parameters = parameters
    }

    /// Reads `04 code length parameters…`; nil when the packet is short,
    /// not an event, or its length disagrees with what arrived.
    public init?(packet: some Collection<UInt8>) {
        let bytes = Array(packet)
        guard bytes.count >= 3, bytes[0] == 0x04, Int(bytes[2]) == bytes.count - 3 else { return nil }
        self.init(code: bytes[1], parameters: Array(bytes[3...]))
    }

    public static let commandComplete: UInt8 = 0x0E
    public static let commandStatus: UInt8 = 0x0F
    public static let leMeta: UInt8 = 0x3E
}
