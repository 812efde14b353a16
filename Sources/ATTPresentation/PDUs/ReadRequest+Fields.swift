import ATT

extension ReadRequest: PDUFieldsPresentable {
    public var fields: [(String, JSONValue)] { [("handle", .int(Int(handle.rawValue)))] }
}
