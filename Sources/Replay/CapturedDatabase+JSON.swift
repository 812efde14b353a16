import ATT
import ATTPresentation
import Capture

extension CapturedDatabase {
    /// The database as a flat attribute table that GATT's database loader reads
    /// (`attune-gatt-db/1` form 1, the layout of Fixtures/conformance/gatt-dbs.json):
    /// `handle`, `type`, `value_hex`, `permission_bits` and, for service declarations,
    /// `group_end`. What a capture cannot be sure of rides along in keys the loader
    /// ignores: `value_complete`, `readable`, `writable` (null when unknown). Handles the
    /// capture touched without revealing their type (or declarations without their value)
    /// are listed in `untyped_handles`, since such an attribute cannot be served.
    ///
    /// Permissions follow what the capture showed: read and write are allowed unless the
    /// server refused them (Read/Write Not Permitted); declarations are read-only.
    public var json: JSONValue {
        func uuidText(_ u: BluetoothUUID) -> String {
            // 16-bit form for Base-UUID aliases, as gatt-dbs.json writes them.
            if let short = u.uint16 {
                let s = String(short, radix: 16)
                return String(repeating: "0", count: 4 - s.count) + s
            }
            return u.fullString.lowercased()
        }
        func optionalBool(_ b: Bool?) -> JSONValue { b.map { .bool($0) } ?? .null }
        let declarations: Set<UInt16> = [0x2800, 0x2801, 0x2802, 0x2803]
        var attributeList: [JSONValue] = []
        var untyped: [JSONValue] = []
        for a in sortedAttributes {
            // Declarations must hold their exact GATT value to be served.
            guard let type = a.type, !(type.uint16.map(declarations.contains) == true && a.value == nil) else {
                untyped.append(.int(Int(a.handle.rawValue)))
                continue
            }
            var bits = 0
            if type.uint16.map(declarations.contains) == true {
                bits = 0x01
            } else {
                if a.readable != false { bits |= 0x01 }
                if a.writable != false { bits |= 0x02 }
                if bits == 0 { bits = 0x80 }
            }
            var fields: [(String, JSONValue)] = [
                ("handle", .int(Int(a.handle.rawValue))), ("handle_hex", .string(a.handle.description)),
                ("type", .string(uuidText(type))),
                ("value_hex", .string(a.value.map { hexString($0, empty: "") } ?? "")),
                ("permission_bits", .int(bits)),
                ("value_complete", .bool(a.value != nil && a.valueIsComplete)),
                ("readable", optionalBool(a.readable)), ("writable", optionalBool(a.writable)),
            ]
            if let service = servicesByStart[a.handle] {
                fields.append(("group_end", .int(Int(service.end.rawValue))))
            }
            attributeList.append(.object(fields))
        }
        let serviceList: [JSONValue] = services.map { s in
            .object([("start", .int(Int(s.start.rawValue))), ("end", .int(Int(s.end.rawValue))),
                     ("uuid", s.uuid.map { .string(uuidText($0)) } ?? .null), ("primary", .bool(s.isPrimary))])
        }
        return .object([("schema", .string("attune-captured-db/1")), ("attributes", .array(attributeList)),
                        ("untyped_handles", .array(untyped)), ("services", .array(serviceList))])
    }
}
