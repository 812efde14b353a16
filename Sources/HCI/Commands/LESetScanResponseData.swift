/// HCI_LE_Set_Scan_Response_Data (Vol 4 Part E §7.8.8): up to 31 bytes of legacy scan response
/// data. The parameter is always 32 bytes: a length, then the data padded.
public struct LESetScanResponseData: HCICommand, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x08, ocf: 0x0009)
    public var data: [UInt8]

    /// Returns nil when `data` exceeds the 31 bytes a legacy scan response can carry:
    /// truncating on the wire would corrupt the last AD structure.
    public init?(data: [UInt8]) {
        guard data.count <= 31 else { return nil }
        self.data = data
    }

    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.append(UInt8(data.count))
        buffer.append(contentsOf: data)
        buffer.append(contentsOf: repeatElement(0, count: 31 - data.count))
    }
}
