/// ATT_READ_RSP (Vol 3 Part F §3.4.4.4).
public struct ReadResponse: ValuePDU {
    public static let opcode = ATTOpcode.readResponse
    public var value: ArraySlice<UInt8>
    public init(value: ArraySlice<UInt8>) { self.value = value }
}

/// ATT_READ_BLOB_RSP (Vol 3 Part F §3.4.4.6).
public struct ReadBlobResponse: ValuePDU {
    public static let opcode = ATTOpcode.readBlobResponse
    public var value: ArraySlice<UInt8>
    public init(value: ArraySlice<UInt8>) { self.value = value }
}

/// ATT_READ_MULTIPLE_RSP (Vol 3 Part F §3.4.4.8): the values concatenated, without
/// lengths, so only the client that asked can split them.
public struct ReadMultipleResponse: ValuePDU {
    public static let opcode = ATTOpcode.readMultipleResponse
    public var value: ArraySlice<UInt8>
    public init(value: ArraySlice<UInt8>) { self.value = value }
}
