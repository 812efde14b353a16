/// HCI_Reset (Vol 4 Part E §7.3.2): returns the controller to its power-on state.
public struct Reset: HCICommand, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x03, ocf: 0x0003)
    public init() {}
    public func encodeParameters(into buffer: inout [UInt8]) {}
}
