import ATT
import Foundation

/// Loads attribute databases from JSON (schema `attune-gatt-db/1`, documented in
/// `Docs/database-json.md`).
///
/// Two forms are accepted for each database: a flat `attributes` table (which is what
/// the conformance fixtures in `gatt-dbs.json` are) and a structured `services` list
/// (the JSON twin of the Swift DSL).
public enum DatabaseJSON {
    /// How attributes of type 0x2902 are loaded from the flat `attributes` form.
    public enum ClientConfigurationMode: Sendable {
        /// One value per client, as a real server keeps them.
        case perClient
        /// A plain stored attribute shared by all clients, as the conformance databases
        /// are written ("CCCDs in these databases are plain stored attributes").
        case stored
    }

    /// Every database of a file: either `{"databases": {name: db, ...}}` or a single
    /// database object (returned under the name "default").
    public static func databases(from data: Data, cccd: ClientConfigurationMode = .perClient)
        throws(DatabaseError) -> [String: AttributeDatabase] {
        let root: Any
        do { root = try JSONSerialization.jsonObject(with: data) } catch {
            throw .json(path: "$", reason: "not JSON: \(error.localizedDescription)")
        }
        guard let object = root as? [String: Any] else { throw .json(path: "$", reason: "expected an object") }
        if let dbs = object["databases"] {
            guard let dbs = dbs as? [String: Any] else { throw .json(path: "$.databases", reason: "expected an object") }
            var out: [String: AttributeDatabase] = [:]
            for (name, db) in dbs {
                out[name] = try database(from: db, path: "$.databases.\(name)", cccd: cccd)
            }
            return out
        }
        return ["default": try database(from: object, path: "$", cccd: cccd)]
    }

    /// One database object.
    public static func database(from json: Any, path: String = "$", cccd: ClientConfigurationMode = .perClient)
        throws(DatabaseError) -> AttributeDatabase {
        guard let object = json as? [String: Any] else { throw .json(path: path, reason: "expected an object") }
        if let attributes = object["attributes"] {
            guard let list = attributes as? [Any] else { throw .json(path: path + ".attributes", reason: "expected an array") }
            var out: [Attribute] = []
            for (i, item) in list.enumerated() {
                out.append(try attribute(item, path: "\(path).attributes[\(i)]", cccd: cccd))
            }
            return try AttributeDatabase(attributes: out)
        }
        if let services = object["services"] {
            guard let list = services as? [Any] else { throw .json(path: path + ".services", reason: "expected an array") }
            var defs: [ServiceDefinition] = []
            for (i, item) in list.enumerated() { defs.append(try service(item, path: "\(path).services[\(i)]")) }
            return try AttributeDatabase(services: defs)
        }
        throw .json(path: path, reason: "expected \"attributes\" or \"services\"")
    }

    // MARK: - Flat form

    static func attribute(_ json: Any, path: String, cccd: ClientConfigurationMode) throws(DatabaseError) -> Attribute {
        guard let o = json as? [String: Any] else { throw .json(path: path, reason: "expected an object") }
        let handle = try handleValue(o["handle"], path: path + ".handle")
        let type = try uuid(o["type"], path: path + ".type")
        let value = try bytesValue(o, path: path)
        let permissions: AttributePermissions
        if let access = o["access"] {
            permissions = try self.permissions(access, path: path + ".access")
        } else if let bits = o["permission_bits"] {
            guard let n = bits as? Int, (0...0xFFFF).contains(n) else {
                throw .json(path: path + ".permission_bits", reason: "expected an integer 0...65535")
            }
            permissions = AttributePermissions(bluezBits: UInt16(n))
        } else {
            throw .json(path: path, reason: "needs \"access\" or \"permission_bits\"")
        }
        var kind = try self.kind(o["kind"], path: path + ".kind")
        if o["kind"] == nil && type == GATTAttributeType.clientCharacteristicConfiguration && cccd == .perClient {
            kind = .clientCharacteristicConfiguration
        }
        var groupEnd: AttributeHandle?
        if let end = o["group_end"] {
            groupEnd = try handleValue(end, path: path + ".group_end")
        } else if let range = o["in_service"] as? String,
                  type == GATTAttributeType.primaryService || type == GATTAttributeType.secondaryService {
            let parts = range.split(separator: "-")
            guard parts.count == 2, let end = parseInt(String(parts[1])), (1...0xFFFF).contains(end) else {
                throw .json(path: path + ".in_service", reason: "expected \"0xSSSS-0xEEEE\"")
            }
            groupEnd = AttributeHandle(UInt16(end))
        }
        let maxLength = (o["max_length"] as? Int) ?? 512
        return Attribute(handle: handle, type: type, permissions: permissions, kind: kind, value: value,
                         maximumLength: max(maxLength, value.count), groupEnd: groupEnd)
    }

    // MARK: - Structured form

    static func service(_ json: Any, path: String) throws(DatabaseError) -> ServiceDefinition {
        guard let o = json as? [String: Any] else { throw .json(path: path, reason: "expected an object") }
        var s = ServiceDefinition(try uuid(o["uuid"], path: path + ".uuid"))
        s.isPrimary = (o["primary"] as? Bool) ?? true
        s.id = o["id"] as? String
        if let h = o["handle"] { s.handle = try handleValue(h, path: path + ".handle") }
        s.reservedHandles = (o["reserved_handles"] as? Int) ?? 0
        s.includes = (o["includes"] as? [String]) ?? []
        for (i, c) in ((o["characteristics"] as? [Any]) ?? []).enumerated() {
            s.characteristics.append(try characteristic(c, path: "\(path).characteristics[\(i)]"))
        }
        return s
    }

    static func characteristic(_ json: Any, path: String) throws(DatabaseError) -> CharacteristicDefinition {
        guard let o = json as? [String: Any] else { throw .json(path: path, reason: "expected an object") }
        let props = try properties(o["properties"], path: path + ".properties")
        var ext: CharacteristicExtendedProperties = []
        for name in (o["extended_properties"] as? [String]) ?? [] {
            switch name {
            case "reliable_write": ext.insert(.reliableWrite)
            case "writable_auxiliaries": ext.insert(.writableAuxiliaries)
            default: throw .json(path: path + ".extended_properties", reason: "unknown \"\(name)\"")
            }
        }
        var descriptors: [DescriptorDefinition] = []
        for (i, d) in ((o["descriptors"] as? [Any]) ?? []).enumerated() {
            descriptors.append(try descriptor(d, path: "\(path).descriptors[\(i)]"))
        }
        return CharacteristicDefinition(
            try uuid(o["uuid"], path: path + ".uuid"), properties: props, extendedProperties: ext,
            permissions: try o["access"].map { a throws(DatabaseError) in try permissions(a, path: path + ".access") },
            value: try bytesValue(o, path: path), dynamic: (o["dynamic"] as? Bool) ?? false,
            maximumLength: (o["max_length"] as? Int) ?? 512,
            handle: try o["handle"].map { h throws(DatabaseError) in try handleValue(h, path: path + ".handle") },
            descriptors: descriptors)
    }

    static func descriptor(_ json: Any, path: String) throws(DatabaseError) -> DescriptorDefinition {
        guard let o = json as? [String: Any] else { throw .json(path: path, reason: "expected an object") }
        let type = try uuid(o["uuid"], path: path + ".uuid")
        if type == GATTAttributeType.clientCharacteristicConfiguration {
            return .clientCharacteristicConfiguration(
                permissions: try o["access"].map { a throws(DatabaseError) in try permissions(a, path: path + ".access") } ?? .readWrite)
        }
        return DescriptorDefinition(
            type, permissions: try o["access"].map { a throws(DatabaseError) in try permissions(a, path: path + ".access") } ?? .readOnly,
            value: try bytesValue(o, path: path), dynamic: (o["dynamic"] as? Bool) ?? false,
            maximumLength: (o["max_length"] as? Int) ?? 512)
    }

    // MARK: - Scalars

    static func permissions(_ json: Any, path: String) throws(DatabaseError) -> AttributePermissions {
        if let name = json as? String {
            switch name {
            case "read_only": return .readOnly
            case "write_only": return .writeOnly
            case "read_write": return .readWrite
            case "none": return .none
            default: throw .json(path: path, reason: "unknown permission set \"\(name)\"")
            }
        }
        guard let o = json as? [String: Any] else { throw .json(path: path, reason: "expected an object or a name") }
        return AttributePermissions(read: try rule(o["read"], path: path + ".read"),
                                    write: try rule(o["write"], path: path + ".write"))
    }

    static func rule(_ json: Any?, path: String) throws(DatabaseError) -> AccessRule {
        guard let json else { return .denied }
        if let name = json as? String {
            switch name {
            case "denied": return .denied
            case "open": return .open
            case "encrypted": return .encrypted
            case "authenticated": return .authenticated
            case "secure": return .secure
            case "authorized": return .authorized
            default: throw .json(path: path, reason: "unknown access rule \"\(name)\"")
            }
        }
        guard let o = json as? [String: Any] else { throw .json(path: path, reason: "expected a rule name or object") }
        let keySize = (o["min_key_size"] as? Int) ?? 0
        guard (0...16).contains(keySize) else { throw .json(path: path + ".min_key_size", reason: "expected 0...16") }
        return AccessRule(permitted: true, encryption: (o["encryption"] as? Bool) ?? false,
                          authentication: (o["authentication"] as? Bool) ?? false,
                          secureConnections: (o["secure_connections"] as? Bool) ?? false,
                          authorization: (o["authorization"] as? Bool) ?? false, minimumKeySize: UInt8(keySize))
    }

    static func properties(_ json: Any?, path: String) throws(DatabaseError) -> CharacteristicProperties {
        if let n = json as? Int, (0...255).contains(n) { return CharacteristicProperties(rawValue: UInt8(n)) }
        guard let names = json as? [String] else { throw .json(path: path, reason: "expected names or an integer") }
        var p: CharacteristicProperties = []
        for name in names {
            switch name {
            case "broadcast": p.insert(.broadcast)
            case "read": p.insert(.read)
            case "write_without_response": p.insert(.writeWithoutResponse)
            case "write": p.insert(.write)
            case "notify": p.insert(.notify)
            case "indicate": p.insert(.indicate)
            case "authenticated_signed_writes": p.insert(.authenticatedSignedWrites)
            case "extended_properties": p.insert(.extendedProperties)
            default: throw .json(path: path, reason: "unknown property \"\(name)\"")
            }
        }
        return p
    }

    static func kind(_ json: Any?, path: String) throws(DatabaseError) -> AttributeKind {
        guard let json else { return .stored }
        switch json as? String {
        case "stored": return .stored
        case "dynamic": return .dynamic
        case "client_characteristic_configuration": return .clientCharacteristicConfiguration
        case "client_supported_features": return .clientSupportedFeatures
        case "database_hash": return .databaseHash
        default: throw .json(path: path, reason: "unknown kind")
        }
    }

    static func handleValue(_ json: Any?, path: String) throws(DatabaseError) -> AttributeHandle {
        let n: Int?
        if let i = json as? Int { n = i } else if let s = json as? String { n = parseInt(s) } else { n = nil }
        guard let n, (1...0xFFFF).contains(n) else { throw .json(path: path, reason: "expected a handle 1...0xffff") }
        return AttributeHandle(UInt16(n))
    }

    static func uuid(_ json: Any?, path: String) throws(DatabaseError) -> BluetoothUUID {
        guard let s = json as? String, let u = BluetoothUUID(s) else {
            throw .json(path: path, reason: "expected a UUID string (\"180d\" or 36-character form)")
        }
        return u
    }

    static func bytesValue(_ o: [String: Any], path: String) throws(DatabaseError) -> [UInt8] {
        if let text = o["value_text"] as? String, o["value_hex"] == nil { return Array(text.utf8) }
        guard let hex = o["value_hex"] else { return [] }
        guard let s = hex as? String, let bytes = parseHex(s) else {
            throw .json(path: path + ".value_hex", reason: "expected an even number of hex digits")
        }
        return bytes
    }

    static func parseInt(_ s: String) -> Int? {
        if s.hasPrefix("0x") || s.hasPrefix("0X") { return Int(s.dropFirst(2), radix: 16) }
        return Int(s)
    }
}

/// Lowercase or uppercase hex, optional whitespace; nil when malformed.
public func parseHex(_ s: String) -> [UInt8]? {
    var out: [UInt8] = []
    out.reserveCapacity(s.utf8.count / 2)
    var high: UInt8?
    for c in s.utf8 {
        let v: UInt8
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): v = c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): v = c - UInt8(ascii: "A") + 10
        case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\t"): continue
        default: return nil
        }
        if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
    }
    return high == nil ? out : nil
}
