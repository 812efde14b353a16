import ATT

extension HandleValuePDU {
    public var fields: [(String, JSONValue)] {
        [("handle", .int(Int(handle.rawValue))), ("value", .hex(value))]
    }
}

extension ValuePDU {
    public var fields: [(String, JSONValue)] { [("value", .hex(value))] }
}

extension EmptyPDU {
    public var fields: [(String, JSONValue)] { [] }
}

extension HandleListPDU {
    public var fields: [(String, JSONValue)] { [("handles", .array(handles.map { .int(Int($0.rawValue)) }))] }
}
