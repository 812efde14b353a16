import ATT

extension MultipleHandleValueNotification: PDUFieldsPresentable {
    public var fields: [(String, JSONValue)] {
        [("entries", .array(entries.map { .object([("handle", .int(Int($0.handle.rawValue))), ("value", .hex($0.value))]) }))]
    }
}
