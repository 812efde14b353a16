/// ATT_WRITE_REQ (Vol 3 Part F §3.4.5.1).
public struct WriteRequest: HandleValuePDU {
    public static let opcode = ATTOpcode.writeRequest
    public static let rejectsZeroHandle = false
    public var handle: AttributeHandle
    public var value: ArraySlice<UInt8>
    public init(handle: AttributeHandle, value: ArraySlice<UInt8>) {
        self.handle = handle
        self.value = value
    }
}

/// ATT_WRITE_CMD (Vol 3 Part F §3.4.5.3).
public struct WriteCommand: HandleValuePDU {
    public static let opcode = ATTOpcode.writeCommand
    public static let rejectsZeroHandle = false
    public var handle: AttributeHandle
    public var value: ArraySlice<UInt8>
    public init(handle: AttributeHandle, value: ArraySlice<UInt8>) {
        self.handle = handle
        self.value = value
    }
}

/// ATT_HANDLE_VALUE_NTF (Vol 3 Part F §3.4.7.1).
public struct HandleValueNotification: HandleValuePDU {
    public static let opcode = ATTOpcode.handleValueNotification
    public static let rejectsZeroHandle = true
    public var handle: AttributeHandle
    public var value: ArraySlice<UInt8>
    public init(handle: AttributeHandle, value: ArraySlice<UInt8>) {
        self.handle = handle
        self.value = value
    }
}

/// ATT_HANDLE_VALUE_IND (Vol 3 Part F §3.4.7.2).
public struct HandleValueIndication: HandleValuePDU {
    public static let opcode = ATTOpcode.handleValueIndication
    public static let rejectsZeroHandle = true
    public var handle: AttributeHandle
    public var value: ArraySlice<UInt8>
    public init(handle: AttributeHandle, value: ArraySlice<UInt8>) {
        self.handle = handle
        self.value = value
    }
}
