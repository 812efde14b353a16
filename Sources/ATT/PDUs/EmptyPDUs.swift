/// ATT_WRITE_RSP (Vol 3 Part F §3.4.5.2).
public struct WriteResponse: EmptyPDU {
    public static let opcode = ATTOpcode.writeResponse
    public init() {}
}

/// ATT_EXECUTE_WRITE_RSP (Vol 3 Part F §3.4.6.4).
public struct ExecuteWriteResponse: EmptyPDU {
    public static let opcode = ATTOpcode.executeWriteResponse
    public init() {}
}

/// ATT_HANDLE_VALUE_CFM (Vol 3 Part F §3.4.7.3).
public struct HandleValueConfirmation: EmptyPDU {
    public static let opcode = ATTOpcode.handleValueConfirmation
    public init() {}
}
