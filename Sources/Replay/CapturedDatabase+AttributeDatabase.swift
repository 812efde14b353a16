import ATT
import Capture
import GATT

extension CapturedDatabase {
    /// The database our server serves when replaying a capture without a given one: the
    /// attributes the capture revealed, built directly (no JSON text in between), with
    /// what ``json`` writes and GATT's loader would make of it. Attributes whose type the
    /// capture never showed, and declarations whose value it never showed, cannot be
    /// served and are left out.
    ///
    /// Permissions follow what the capture showed: read and write are allowed unless the
    /// server refused them (Read/Write Not Permitted); declarations are read-only. A
    /// Client Characteristic Configuration is kept per client, as a real server keeps it.
    public func attributeDatabase() throws(DatabaseError) -> AttributeDatabase {
        var list: [Attribute] = []
        list.reserveCapacity(attributes.count)
        for a in sortedAttributes {
            guard let type = a.type, !(Self.isDeclaration(type) && a.value == nil) else { continue }
            // The width the JSON form gives a UUID: 16-bit for Base UUID aliases, else 128-bit.
            let served = type.uint16.map { BluetoothUUID($0) } ?? type.expanded
            var bits: UInt16 = 0
            if Self.isDeclaration(type) {
                bits = 0x01
            } else {
                if a.readable != false { bits |= 0x01 }
                if a.writable != false { bits |= 0x02 }
                if bits == 0 { bits = 0x80 }
            }
            // A damaged capture's Read Blobs can chain past the 512 bytes a value may have
            // (Vol 3 Part F §3.2.9); what lies beyond is not served.
            let value = Array((a.value ?? []).prefix(DatabaseError.maximumValueLength))
            let kind: AttributeKind = served == GATTAttributeType.clientCharacteristicConfiguration
                ? .clientCharacteristicConfiguration : .stored
            list.append(Attribute(handle: a.handle, type: served, permissions: AttributePermissions(bluezBits: bits),
                                  kind: kind, value: value, maximumLength: DatabaseError.maximumValueLength,
                                  groupEnd: servicesByStart[a.handle]?.end))
        }
        return try AttributeDatabase(attributes: list)
    }

    static func isDeclaration(_ type: BluetoothUUID) -> Bool {
        guard let short = type.uint16 else { return false }
        return (0x2800...0x2803).contains(short)
    }
}
