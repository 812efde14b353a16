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
    /// database object (returned under the name "default"). Every problem of the file is
    /// reported, each at its JSON path (the first ten, then how many more).
    public static func databases(from data: Data, cccd: ClientConfigurationMode = .perClient)
        throws(DatabaseError) -> [String: AttributeDatabase] {
        let root = try parse(data)
        guard let object = root as? [String: Any] else { throw .json(path: "$", reason: "expected an object") }
        if let dbs = object["databases"] {
            guard let dbs = dbs as? [String: Any] else { throw .json(path: "$.databases", reason: "expected an object") }
            var out: [String: AttributeDatabase] = [:]
            var problems = DatabaseProblemList()
            for (name, db) in dbs.sorted(by: { $0.key < $1.key }) {
                out[name] = build(db, path: "$.databases.\(name.count > 40 ? name.prefix(40) + "…" : name)", cccd: cccd, &problems)
            }
            if let error = problems.error { throw error }
            return out
        }
        return ["default": try database(from: object, path: "$", cccd: cccd)]
    }

    /// One database object.
    public static func database(from json: Any, path: String = "$", cccd: ClientConfigurationMode = .perClient)
        throws(DatabaseError) -> AttributeDatabase {
        var problems = DatabaseProblemList()
        let db = build(json, path: path, cccd: cccd, &problems)
        if let error = problems.error { throw error }
        guard let db else { throw .json(path: path, reason: "invalid") }   // never: a nil comes with a problem
        return db
    }

    /// One database, or nil with its problems added to `problems`.
    static func build(_ json: Any, path: String, cccd: ClientConfigurationMode,
                      _ problems: inout DatabaseProblemList) -> AttributeDatabase? {
        let before = problems.total
        do throws(DatabaseError) {
            guard let object = json as? [String: Any] else { throw DatabaseError.json(path: path, reason: "expected an object") }
            if let attributes = object["attributes"] {
                guard let list = attributes as? [Any] else { throw DatabaseError.json(path: path + ".attributes", reason: "expected an array") }
                var out: [Attribute] = []
                for (i, item) in list.enumerated() {
                    collecting(&problems) { (p: inout DatabaseProblemList) throws(DatabaseError) in
                        out.append(try attribute(item, path: "\(path).attributes[\(i)]", cccd: cccd, &p))
                    }
                }
                guard problems.total == before else { return nil }
                return try placed(path) { () throws(DatabaseError) in try AttributeDatabase(attributes: out) }
            }
            if let services = object["services"] {
                let defs = serviceList(services, path: path + ".services", &problems)
                guard problems.total == before else { return nil }
                return try placed(path) { () throws(DatabaseError) in try AttributeDatabase(services: defs) }
            }
            throw DatabaseError.json(path: path, reason: "expected \"attributes\" or \"services\"")
        } catch {
            problems.add(error, at: path)
            return nil
        }
    }

    /// The services of a `services` array; problems go to `problems`, each element that
    /// has one is left out.
    static func serviceList(_ json: Any, path: String, _ problems: inout DatabaseProblemList) -> [ServiceDefinition] {
        guard let list = json as? [Any] else {
            problems.add(path, "expected an array")
            return []
        }
        var defs: [ServiceDefinition] = []
        for (i, item) in list.enumerated() {
            collecting(&problems) { (p: inout DatabaseProblemList) throws(DatabaseError) in
                defs.append(try service(item, path: "\(path)[\(i)]", &p))
            }
        }
        return defs
    }

    /// Runs `body`, adding what it throws to `problems`: a structural error ends that
    /// element, not the whole load.
    static func collecting(_ problems: inout DatabaseProblemList,
                           _ body: (inout DatabaseProblemList) throws(DatabaseError) -> Void) {
        do { try body(&problems) } catch { problems.add(error, at: "$") }
    }

    /// Builds the database; a placement error gets the JSON path of what it names.
    static func placed(_ path: String, _ body: () throws(DatabaseError) -> AttributeDatabase) throws(DatabaseError) -> AttributeDatabase {
        do { return try body() } catch {
            if case let .placement(p, reason) = error { throw .json(path: path + "." + p, reason: reason) }
            throw .json(path: path, reason: error.description)
        }
    }

    // MARK: - Flat form

    static func attribute(_ json: Any, path: String, cccd: ClientConfigurationMode,
                          _ problems: inout DatabaseProblemList) throws(DatabaseError) -> Attribute {
        guard let o = json as? [String: Any] else { throw .json(path: path, reason: "expected an object") }
        let handle = try handleValue(o["handle"], path: path + ".handle")
        let type = try uuid(o["type"], path: path + ".type")
        let value = bytesValue(o, path: path, &problems)
        let permissions: AttributePermissions
        if let access = o["access"] {
            permissions = try self.permissions(access, path: path + ".access")
        } else if let bits = o["permission_bits"] {
            guard let n = integer(bits), (0...0xFFFF).contains(n) else {
                throw .json(path: path + ".permission_bits", reason: "expected an integer 0…65535, not \(shown(bits))")
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
                throw .json(path: path + ".in_service", reason: "expected \"0xSSSS-0xEEEE\", not \(shown(range))")
            }
            groupEnd = AttributeHandle(UInt16(end))
        }
        // The flat form's max_length is at least the initial length (the fixtures' rule).
        let maxLength = maximumLength(o, path: path, &problems)
        return Attribute(handle: handle, type: type, permissions: permissions, kind: kind, value: value,
                         maximumLength: min(max(maxLength, value.count), DatabaseError.maximumValueLength), groupEnd: groupEnd)
    }

    // MARK: - Structured form

    static func service(_ json: Any, path: String, _ problems: inout DatabaseProblemList) throws(DatabaseError) -> ServiceDefinition {
        guard let o = json as? [String: Any] else { throw .json(path: path, reason: "expected an object") }
        var s = ServiceDefinition(try uuid(o["uuid"], path: path + ".uuid"))
        s.isPrimary = (o["primary"] as? Bool) ?? true
        s.id = o["id"] as? String
        if let h = o["handle"] { s.handle = try handleValue(h, path: path + ".handle") }
        if let r = o["reserved_handles"] {
            if let n = integer(r), (0...0xFFFF).contains(n) {
                s.reservedHandles = n
            } else {
                problems.add(path + ".reserved_handles", "expected a whole number 0…65535, not \(shown(r))")
            }
        }
        s.includes = (o["includes"] as? [String]) ?? []
        for (i, c) in ((o["characteristics"] as? [Any]) ?? []).enumerated() {
            collecting(&problems) { (p: inout DatabaseProblemList) throws(DatabaseError) in
                s.characteristics.append(try characteristic(c, path: "\(path).characteristics[\(i)]", &p))
            }
        }
        return s
    }

    static func characteristic(_ json: Any, path: String, _ problems: inout DatabaseProblemList) throws(DatabaseError) -> CharacteristicDefinition {
        guard let o = json as? [String: Any] else { throw .json(path: path, reason: "expected an object") }
        let props = try properties(o["properties"], path: path + ".properties")
        var ext: CharacteristicExtendedProperties = []
        for name in (o["extended_properties"] as? [String]) ?? [] {
            switch name {
            case "reliable_write": ext.insert(.reliableWrite)
            case "writable_auxiliaries": ext.insert(.writableAuxiliaries)
            default: throw .json(path: path + ".extended_properties", reason: "unknown \(shown(name))")
            }
        }
        var descriptors: [DescriptorDefinition] = []
        for (i, d) in ((o["descriptors"] as? [Any]) ?? []).enumerated() {
            collecting(&problems) { (p: inout DatabaseProblemList) throws(DatabaseError) in
                descriptors.append(try descriptor(d, path: "\(path).descriptors[\(i)]", &p))
            }
        }
        let value = bytesValue(o, path: path, &problems)
        return CharacteristicDefinition(
            try uuid(o["uuid"], path: path + ".uuid"), properties: props, extendedProperties: ext,
            permissions: try o["access"].map { a throws(DatabaseError) in try permissions(a, path: path + ".access") },
            value: value, dynamic: (o["dynamic"] as? Bool) ?? false,
            maximumLength: maximumLength(o, path: path, covering: value, &problems),
            handle: try o["handle"].map { h throws(DatabaseError) in try handleValue(h, path: path + ".handle") },
            descriptors: descriptors)
    }

    static func descriptor(_ json: Any, path: String, _ problems: inout DatabaseProblemList) throws(DatabaseError) -> DescriptorDefinition {
        guard let o = json as? [String: Any] else { throw .json(path: path, reason: "expected an object") }
        let type = try uuid(o["uuid"], path: path + ".uuid")
        if type == GATTAttributeType.clientCharacteristicConfiguration {
            return .clientCharacteristicConfiguration(
                permissions: try o["access"].map { a throws(DatabaseError) in try permissions(a, path: path + ".access") } ?? .readWrite)
        }
        let value = bytesValue(o, path: path, &problems)
        return DescriptorDefinition(
            type, permissions: try o["access"].map { a throws(DatabaseError) in try permissions(a, path: path + ".access") } ?? .readOnly,
            value: value, dynamic: (o["dynamic"] as? Bool) ?? false,
            maximumLength: maximumLength(o, path: path, covering: value, &problems))
    }

    /// `max_length`: 0…512 (Vol 3 Part F §3.2.9), 512 when absent; in the services form at
    /// least the initial value's length (`covering`).
    static func maximumLength(_ o: [String: Any], path: String, covering value: [UInt8]? = nil,
                              _ problems: inout DatabaseProblemList) -> Int {
        guard let json = o["max_length"] else { return DatabaseError.maximumValueLength }
        guard let n = integer(json), (0...DatabaseError.maximumValueLength).contains(n) else {
            problems.add(path + ".max_length", "\(shown(json)) is outside 0…512; attribute values are at most 512 bytes (Vol 3 Part F §3.2.9)")
            return DatabaseError.maximumValueLength
        }
        if let value, value.count > n {
            problems.add(path + ".max_length", "\(n) is shorter than the initial value (\(value.count) bytes)")
        }
        return n
    }

    // MARK: - Scalars

    static func permissions(_ json: Any, path: String) throws(DatabaseError) -> AttributePermissions {
        if let name = json as? String {
            switch name {
            case "read_only": return .readOnly
            case "write_only": return .writeOnly
            case "read_write": return .readWrite
            case "none": return .none
            default: throw .json(path: path, reason: "unknown permission set \(shown(name))")
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
            default: throw .json(path: path, reason: "unknown access rule \(shown(name))")
            }
        }
        guard let o = json as? [String: Any] else { throw .json(path: path, reason: "expected a rule name or object") }
        let keySize = o["min_key_size"].map { integer($0) ?? -1 } ?? 0
        guard (0...16).contains(keySize) else {
            throw .json(path: path + ".min_key_size", reason: "expected 0…16, not \(shown(o["min_key_size"] ?? ""))")
        }
        return AccessRule(permitted: true, encryption: (o["encryption"] as? Bool) ?? false,
                          authentication: (o["authentication"] as? Bool) ?? false,
                          secureConnections: (o["secure_connections"] as? Bool) ?? false,
                          authorization: (o["authorization"] as? Bool) ?? false, minimumKeySize: UInt8(keySize))
    }

    static func properties(_ json: Any?, path: String) throws(DatabaseError) -> CharacteristicProperties {
        if let json, let n = integer(json) {
            guard (0...255).contains(n) else { throw .json(path: path, reason: "the property bits are 0…255, not \(n)") }
            return CharacteristicProperties(rawValue: UInt8(n))
        }
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
            default: throw .json(path: path, reason: "unknown property \(shown(name))")
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
        if let s = json as? String { n = parseInt(s) } else { n = json.flatMap(integer) }
        guard let n, (1...0xFFFF).contains(n) else {
            throw .json(path: path, reason: "expected a handle 1…0xffff, not \(shown(json ?? "nothing"))")
        }
        return AttributeHandle(UInt16(n))
    }

    static func uuid(_ json: Any?, path: String) throws(DatabaseError) -> BluetoothUUID {
        guard let s = json as? String, let u = BluetoothUUID(s) else {
            throw .json(path: path, reason: "expected a UUID string (\"180d\" or 36-character form)")
        }
        return u
    }

    /// `value_hex`, else `value_text`: at most 512 bytes (Vol 3 Part F §3.2.9).
    static func bytesValue(_ o: [String: Any], path: String, _ problems: inout DatabaseProblemList) -> [UInt8] {
        let bytes: [UInt8]
        let key: String
        if let text = o["value_text"] as? String, o["value_hex"] == nil {
            (bytes, key) = (Array(text.utf8), "value_text")
        } else if let hex = o["value_hex"] {
            guard let s = hex as? String, let parsed = parseHex(s) else {
                problems.add(path + ".value_hex", "expected an even number of hex digits")
                return []
            }
            (bytes, key) = (parsed, "value_hex")
        } else {
            return []
        }
        guard bytes.count <= DatabaseError.maximumValueLength else {
            problems.add("\(path).\(key)", "\(bytes.count) bytes; attribute values are at most 512 (Vol 3 Part F §3.2.9)")
            return []
        }
        return bytes
    }

    /// A JSON whole number; nil for fractions, booleans and anything else (Foundation
    /// bridges `true` to 1 and 1.5 to 1 when asked for an Int).
    static func integer(_ json: Any) -> Int? {
        if isBoolean(json) { return nil }
        guard let d = json as? Double, d.isFinite, d == d.rounded(), abs(d) < 9e15, let i = json as? Int else { return nil }
        return i
    }

    /// Whether JSONSerialization read `true` or `false` here (its numbers cast to Bool too).
    static func isBoolean(_ json: Any) -> Bool {
        json is Bool && (String(describing: type(of: json)).contains("Boolean") || type(of: json) == Bool.self)
    }

    /// A value from the file as an error shows it: cut short, so an error stays a line.
    static func shown(_ json: Any) -> String {
        let text = isBoolean(json) ? "\((json as? Bool) == true)" : json is String ? "\"\(json)\"" : "\(json)"
        return text.count > 40 ? String(text.prefix(40)) + "…" : text
    }

    static func parseInt(_ s: String) -> Int? {
        if s.hasPrefix("0x") || s.hasPrefix("0X") { return Int(s.dropFirst(2), radix: 16) }
        return Int(s)
    }
}
