import ATT

extension ReadByTypeResponse: PDUFieldsPresentable {
    public var fields: [(String, JSONValue)] {
        [("length", .int(Int(length))),
         ("entries", .array(entries.map { .object([("handle", .int(Int($0.handle.rawValue))), ("value", .hex($0.value))]) }))]
    }
}
