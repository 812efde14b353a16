import ATT

extension ReadMultipleVariableResponse: PDUFieldsPresentable {
    public var fields: [(String, JSONValue)] {
        [("entries", .array(entries.map {
            .object([("length", .int(Int($0.length))), ("value", .hex($0.value)), ("truncated", .bool($0.isTruncated))])
        }))]
    }
}
