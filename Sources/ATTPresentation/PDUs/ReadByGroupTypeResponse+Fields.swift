import ATT

extension ReadByGroupTypeResponse: PDUFieldsPresentable {
    public var fields: [(String, JSONValue)] {
        [("length", .int(Int(length))),
         ("entries", .array(entries.map {
             .object([("handle", .int(Int($0.handle.rawValue))), ("end_group_handle", .int(Int($0.endGroupHandle.rawValue))),
                      ("value", .hex($0.value))])
         }))]
    }
}
