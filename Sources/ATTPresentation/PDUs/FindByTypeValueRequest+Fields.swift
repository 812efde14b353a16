import ATT

extension FindByTypeValueRequest: PDUFieldsPresentable {
    public var fields: [(String, JSONValue)] {
        [("start_handle", .int(Int(range.start.rawValue))), ("end_handle", .int(Int(range.end.rawValue))),
         ("type", .string(BluetoothUUID(attributeType).description)), ("value", .hex(value))]
    }
}
