/// HCI_LE_Long_Term_Key_Request_Negative_Reply (Vol 4 Part E §7.8.26): the peripheral
/// has no key for the link; the controller refuses the central's encryption request.
public struct LELongTermKeyRequestNegativeReply: HCICommand, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x08, ocf: 0x001B)
    public var connectionHandle: UInt16

    public init(connectionHandle: UInt16) { self.connectionHandle = connectionHandle }

    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.appendLittleEndian(connectionHandle)
    }
}
