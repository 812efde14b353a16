import ATT

extension ErrorResponse: PDUFieldsPresentable {
    public var fields: [(String, JSONValue)] {
        [("request_opcode", .int(Int(requestOpcode.rawValue))), ("request", .string(requestOpcode.name)),
         ("handle", .int(Int(handle.rawValue))), ("error_code", .int(Int(errorCode.rawValue))),
         ("error", .string(errorCode.name))]
    }
}
