import ATT

extension RangeTypePDU {
    public var fields: [(String, JSONValue)] {
        [("start_handle", .int(Int(range.start.rawValue))), ("end_handle", .int(Int(range.end.rawValue))),
         ("type", .string(attributeType.description))]
    }
}

extension ReadByTypeRequest: PDUFieldsPresentable {}
extension ReadByGroupTypeRequest: PDUFieldsPresentable {}
