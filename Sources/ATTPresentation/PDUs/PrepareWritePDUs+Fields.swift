import ATT

extension PrepareWritePDU {
    public var fields: [(String, JSONValue)] {
        [("handle", .int(Int(handle.rawValue))), ("offset", .int(Int(offset))), ("part_value", .hex(partValue))]
    }
}

extension PrepareWriteRequest: PDUFieldsPresentable {}
extension PrepareWriteResponse: PDUFieldsPresentable {}
