import ATT

extension FindInformationRequest: PDUFieldsPresentable {
    public var fields: [(String, JSONValue)] {
        [("start_handle", .int(Int(range.start.rawValue))), ("end_handle", .int(Int(range.end.rawValue)))]
    }
}
