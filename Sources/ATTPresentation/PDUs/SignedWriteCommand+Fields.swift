import ATT

extension SignedWriteCommand: PDUFieldsPresentable {
    public var fields: [(String, JSONValue)] {
        [("handle", .int(Int(handle.rawValue))), ("value", .hex(value)),
         ("sign_counter", .int(Int(signCounter))), ("signature", .hex(signature))]
    }
}
