/// HCI_LE_Long_Term_Key_Request_Reply (Vol 4 Part E §7.8.25): the peripheral gives its
/// controller the key for the link the central asked to encrypt. Command Complete returns
/// Status and Connection_Handle.
public struct LELongTermKeyRequestReply: HCICommand, Hashable, CustomStringConvertible {
    public static let opcode = HCIOpcode(ogf: 0x08, ocf: 0x001A)
    public var connectionHandle: UInt16
    public var longTermKey: LinkKeyMaterial

    public init(connectionHandle: UInt16, longTermKey: LinkKeyMaterial) {
        self.connectionHandle = connectionHandle
        self.longTermKey = longTermKey
    }

    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.appendLittleEndian(connectionHandle)
        buffer.append(contentsOf: longTermKey.bytes)
    }

    public var description: String {
        "LE Long Term Key Request Reply(handle 0x\(String(connectionHandle, radix: 16)), key <redacted>)"
    }
}
