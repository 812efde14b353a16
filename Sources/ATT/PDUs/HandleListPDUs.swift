/// ATT_READ_MULTIPLE_REQ (Vol 3 Part F §3.4.4.7): two or more handles.
public struct ReadMultipleRequest: HandleListPDU {
    public static let opcode = ATTOpcode.readMultipleRequest
    public var handleData: ArraySlice<UInt8>
    public init(handleData: ArraySlice<UInt8>) { self.handleData = handleData }
}

/// ATT_READ_MULTIPLE_VARIABLE_REQ (Vol 3 Part F §3.4.4.11): two or more handles.
public struct ReadMultipleVariableRequest: HandleListPDU {
    public static let opcode = ATTOpcode.readMultipleVariableRequest
    public var handleData: ArraySlice<UInt8>
    public init(handleData: ArraySlice<UInt8>) { self.handleData = handleData }
}
