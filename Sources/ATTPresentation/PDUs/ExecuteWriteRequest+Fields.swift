import ATT

extension ExecuteWriteRequest: PDUFieldsPresentable {
    public var fields: [(String, JSONValue)] { [("flags", .int(Int(flags.rawValue)))] }
}
