/// HCI_LE_Set_Extended_Scan_Response_Data (Vol 4 Part E §7.8.55), one fragment at a time.
public struct LESetExtendedScanResponseData: HCICommand, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x08, ocf: 0x0038)
    public var fragment: ExtendedDataFragment

    /// Returns nil when `data` does not fit one command.
    public init?(advertisingHandle: UInt8 = 0, operation: UInt8 = 0x03, fragmentPreference: UInt8 = 0x01, data: [UInt8]) {
        guard let f = ExtendedDataFragment(advertisingHandle: advertisingHandle, operation: operation,
                                           fragmentPreference: fragmentPreference, data: data) else { return nil }
        fragment = f
    }

    public func encodeParameters(into buffer: inout [UInt8]) { fragment.encode(into: &buffer) }
}
