import ATT

extension SignedWriteCommand: PDUFieldsPresentable {
    public var fields: [(String, JSONValue)] {
        [("handle", .int(Int(handle.rawValue))), ("value", .string(hexString(value).replacingEmpty)),
         ("sign_counter", .int(Int(signCounter))), ("signature", .string(hexString(signature)))]
    }
}
