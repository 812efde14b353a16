import ATT

extension ReadBlobRequest: PDUFieldsPresentable {
    public var fields: [(String, JSONValue)] { [("handle", .int(Int(handle.rawValue))), ("offset", .int(Int(offset)))] }
}
