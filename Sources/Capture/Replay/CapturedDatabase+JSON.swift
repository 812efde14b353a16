import ATT

extension CapturedDatabase {
    /// The database in the attribute layout of Fixtures/conformance/gatt-dbs.json
    /// (`handle`, `handle_hex`, `type`, `value_hex`), plus what a capture cannot be sure
    /// of: `value_complete`, `readable`, `writable` (null when unknown).
    public var json: JSONValue {
        func uuidText(_ u: BluetoothUUID?) -> JSONValue {
            guard let u else { return .null }
            // 16-bit form for Base-UUID aliases, as gatt-dbs.json writes them.
            if let short = u.uint16 {
                let s = String(short, radix: 16)
                return .string(String(repeating: "0", count: 4 - s.count) + s)
            }
            return .string(u.fullString.lowercased())
        }
        func optionalBool(_ b: Bool?) -> JSONValue { b.map { .bool($0) } ?? .null }
        let attributeList: [JSONValue] = sortedAttributes.map { a in
            .object([
                ("handle", .int(Int(a.handle.rawValue))), ("handle_hex", .string(a.handle.description)),
                ("type", uuidText(a.type)), ("value_hex", a.value.map { .string($0.isEmpty ? "" : hexString($0)) } ?? .null),
                ("value_complete", .bool(a.value != nil && a.valueIsComplete)),
                ("readable", optionalBool(a.readable)), ("writable", optionalBool(a.writable)),
            ])
        }
        let serviceList: [JSONValue] = services.map { s in
            .object([("start", .int(Int(s.start.rawValue))), ("end", .int(Int(s.end.rawValue))),
                     ("uuid", uuidText(s.uuid)), ("primary", .bool(s.isPrimary))])
        }
        return .object([("schema", .string("attune-captured-db/1")), ("attributes", .array(attributeList)),
                        ("services", .array(serviceList))])
    }
}
