/// The parameters LE Set Extended Advertising Data and LE Set Extended Scan Response
/// Data share (Vol 4 Part E §7.8.54–55): one fragment of data for one advertising set.
public struct ExtendedDataFragment: Hashable, Sendable {
    /// The most data one command can carry: 255 parameter bytes minus the 4-byte header.
    public static let maximumLength = 251

    public var advertisingHandle: UInt8
    /// 0x00 intermediate, 0x01 first, 0x02 last, 0x03 complete, 0x04 unchanged (new DID).
    public var operation: UInt8
    /// 0x01: the controller should not fragment further.
    public var fragmentPreference: UInt8
    public var data: [UInt8]

    /// Returns nil when `data` does not fit one command.
    public init?(advertisingHandle: UInt8 = 0, operation: UInt8 = 0x03, fragmentPreference: UInt8 = 0x01, data: [UInt8]) {
        guard data.count <= Self.maximumLength else { return nil }
        self.advertisingHandle = advertisingHandle
        self.operation = operation
        self.fragmentPreference = fragmentPreference
        self.data = data
    }

    func encode(into buffer: inout [UInt8]) {
        buffer.append(advertisingHandle)
        buffer.append(operation)
        buffer.append(fragmentPreference)
        buffer.append(UInt8(data.count))
        buffer.append(contentsOf: data)
    }
}
