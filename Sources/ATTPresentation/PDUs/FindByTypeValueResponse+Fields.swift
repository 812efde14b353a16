import ATT

extension FindByTypeValueResponse: PDUFieldsPresentable {
    public var fields: [(String, JSONValue)] {
        [("entries", .array(entries.map {
            .object([("found_handle", .int(Int($0.foundHandle.rawValue))), ("group_end_handle", .int(Int($0.groupEndHandle.rawValue)))])
        }))]
    }
}
