import ATT

extension FindInformationResponse: PDUFieldsPresentable {
    public var fields: [(String, JSONValue)] {
        [("format", .int(Int(format.rawValue))),
         ("entries", .array(entries.map { .object([("handle", .int(Int($0.handle.rawValue))), ("uuid", .string($0.type.description))]) }))]
    }
}
