import ATT

extension ReadMultipleVariableResponse: PDUFieldsPresentable {
    public var fields: [(String, JSONValue)] {
        [("entries", .array(entries.map {
            .object([("length", .int(Int($0.length))), ("value", .string(hexString($0.value).replacingEmpty)), ("truncated", .bool($0.isTruncated))])
        }))]
    }
}
