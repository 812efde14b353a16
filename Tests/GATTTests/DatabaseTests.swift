import FixtureTestSupport
import Foundation
import Testing
import ATT
@testable import GATT
import HexTestSupport

@Suite struct DatabaseTests {
    @Test func aesCMACMatchesRFC4493() throws {
        let key = bytes("2b7e151628aed2a6abf7158809cf4f3c")
        #expect(try AESCMAC.mac(key: key, message: []) == bytes("bb1d6929e95937287fa37d129b756746"))
        #expect(try AESCMAC.mac(key: key, message: bytes("6bc1bee22e409f96e93d7e117393172a"))
            == bytes("070a16b46b4d4144f79bdd9dd04a287c"))
    }

    /// The sample database of Vol 3 Part G Appendix B and its hash.
    @Test func databaseHashSampleData() throws {
        func decl(_ h: UInt16, _ type: UInt16, _ value: String) -> Attribute {
            Attribute(handle: AttributeHandle(h), type: BluetoothUUID(type), permissions: .readOnly, value: bytes(value))
        }
        func val(_ h: UInt16, _ type: UInt16) -> Attribute {
            Attribute(handle: AttributeHandle(h), type: BluetoothUUID(type), permissions: .readOnly, value: [1])
        }
        let attributes = [
            decl(0x01, 0x2800, "0018"), decl(0x02, 0x2803, "0a0300002a"), val(0x03, 0x2A00),
            decl(0x04, 0x2803, "020500012a"), val(0x05, 0x2A01),
            decl(0x06, 0x2800, "0118"), decl(0x07, 0x2803, "200800052a"), val(0x08, 0x2A05), decl(0x09, 0x2902, "0000"),
            decl(0x0A, 0x2803, "0a0b00292b"), val(0x0B, 0x2B29), decl(0x0C, 0x2803, "020d002a2b"), val(0x0D, 0x2B2A),
            decl(0x0E, 0x2800, "0818"), decl(0x0F, 0x2802, "140016000f18"), decl(0x10, 0x2803, "a21100182a"),
            val(0x11, 0x2A18), decl(0x12, 0x2902, "0000"), decl(0x13, 0x2900, "0000"),
            decl(0x14, 0x2801, "0f18"), decl(0x15, 0x2803, "021600192a"), val(0x16, 0x2A19),
        ]
        #expect(DatabaseHash.message(attributes) == bytes("""
            010000280018020003280a0300002a04000328020500012a06000028011807000328200800052a090002290a0003280a0b00292b\
            0c000328020d002a2b0e00002808180f000228140016000f1810000328a21100182a12000229130000290000140001280f18\
            15000328021600192a
            """))
        #expect(DatabaseHash.cmac(attributes) == bytes("F1CA2D48ECF58BAC8A8830BBB9FBA990"))
        let db = try AttributeDatabase(attributes: attributes)
        #expect(db.hash == bytes("F1CA2D48ECF58BAC8A8830BBB9FBA990").reversed())
    }

    @Test func dslAllocatesHandlesAndAddsDescriptors() throws {
        let db = testDatabase()
        let gatt = db.services[0]
        #expect(gatt.uuid == BluetoothUUID(0x1801))
        #expect(gatt.range == AttributeHandleRange(start: 1, end: 10))
        let hr = db.characteristics.first { $0.uuid == BluetoothUUID(0x2A37) }!
        #expect(hr.clientConfigurationHandle == AttributeHandle(hr.valueHandle.rawValue + 1))
        let reliable = db.characteristics.first { $0.uuid == BluetoothUUID(0x2A39) }!
        #expect(reliable.extendedProperties == .reliableWrite)
        #expect(reliable.properties.contains(.extendedProperties))
        #expect(db[hr.declarationHandle]!.value == [0x12, UInt8(hr.valueHandle.rawValue), 0, 0x37, 0x2A])
    }

    @Test func explicitHandlesReservedRangesAndIncludes() throws {
        let db = try AttributeDatabase {
            Service(BluetoothUUID(0x180F), primary: false, id: "battery", handle: 0x0040, reservedHandles: 5) {
                Characteristic(BluetoothUUID(0x2A19), properties: [.read], value: [100])
            }
            Service(BluetoothUUID(0x180A), handle: 0x0010, includes: ["battery"]) {
                Characteristic(BluetoothUUID(0x2A29), properties: [.read], value: Array("Attune".utf8))
            }
        }
        #expect(db.services.map(\.range) == [AttributeHandleRange(start: 0x10, end: 0x13),
                                             AttributeHandleRange(start: 0x40, end: 0x47)])
        #expect(db[0x11]!.type == GATTAttributeType.include)
        #expect(db[0x11]!.value == bytes("400047000f18"))
        #expect(throws: DatabaseError.self) {
            try AttributeDatabase {
                Service(BluetoothUUID(0x180F), handle: 0x0010) { Characteristic(BluetoothUUID(0x2A19), properties: [.read]) }
                Service(BluetoothUUID(0x180A), handle: 0x0011)
            }
        }
    }

    @Test func bluezPermissionBitsBecomeExplicitSets() {
        #expect(AttributePermissions(bluezBits: 0) == .readWrite)
        #expect(AttributePermissions(bluezBits: 0x80) == .none)
        #expect(AttributePermissions(bluezBits: 0x01) == .readOnly)
        let p = AttributePermissions(bluezBits: 0x0F)
        #expect(p.read == .encrypted && p.write == .encrypted)
        #expect(AttributePermissions(bluezBits: 0x04).read.permitted == false)
    }

    @Test func jsonStructuredFormMatchesDSL() throws {
        let json = """
            {"services": [{"uuid": "180d", "characteristics": [
              {"uuid": "2a37", "properties": ["read", "notify"], "value_hex": "010203"},
              {"uuid": "2a39", "properties": ["read", "write"], "extended_properties": ["reliable_write"],
               "access": {"read": "open", "write": {"encryption": true, "min_key_size": 16}}, "value_hex": "0000",
               "descriptors": [{"uuid": "2901", "value_text": "Control"}]}
            ]}]}
            """
        let db = try DatabaseJSON.databases(from: Data(json.utf8))["default"]!
        let dsl = try AttributeDatabase {
            Service(BluetoothUUID(0x180D)) {
                Characteristic(BluetoothUUID(0x2A37), properties: [.read, .notify], value: [1, 2, 3])
                Characteristic(BluetoothUUID(0x2A39), properties: [.read, .write], extendedProperties: [.reliableWrite],
                               permissions: .init(read: .open, write: AccessRule(permitted: true, encryption: true, minimumKeySize: 16)),
                               value: [0, 0], descriptors: [.userDescription("Control")])
            }
        }
        #expect(db == dsl)
        #expect(db[4]!.kind == .clientCharacteristicConfiguration)
    }

    @Test func jsonErrorsNameThePath() {
        let json = #"{"attributes": [{"handle": 1, "type": "2800", "value_hex": "0018", "permission_bits": 1}, {"handle": 2, "type": "zz"}]}"#
        #expect(throws: DatabaseError.json(path: "$.attributes[1].type", reason: "expected a UUID string (\"180d\" or 36-character form)")) {
            try DatabaseJSON.databases(from: Data(json.utf8))
        }
    }

    @Test func conformanceDatabasesLoad() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.databases))
        let dbs = try DatabaseJSON.databases(from: data, cccd: .stored)
        #expect(dbs.count == 6)
        let small = dbs["ts_small_db"]!
        #expect(small.services.count == 3)
        #expect(small[0xFFFF]!.groupEnd == 0xFFFF)
        #expect(small.characteristic(valueHandle: 0xF015)!.extendedProperties == .reliableWrite)
        #expect(small[0x0004]!.kind == .stored)
        #expect(try DatabaseJSON.databases(from: data)["ts_small_db"]![0x0004]!.kind == .clientCharacteristicConfiguration)
    }
}

@Suite struct HostileDefinitionTests {
    @Test func negativeReservationsAndHandleExhaustionAreErrors() {
        #expect(throws: DatabaseError.placement(path: "services[0].reserved_handles", reason: "-10 is outside 0…65535")) {
            try AttributeDatabase {
                Service(BluetoothUUID(0x180F), handle: 0xFFFE, reservedHandles: -10) {
                    Characteristic(BluetoothUUID(0x2A19), properties: [.read])
                }
            }
        }
        let json = #"{"services": [{"uuid": "180f", "handle": 65535, "reserved_handles": -3, "characteristics": [{"uuid": "2a19", "properties": ["read"]}]}]}"#
        #expect(throws: DatabaseError.json(path: "$.services[0].reserved_handles", reason: "expected a whole number 0…65535, not -3")) {
            try DatabaseJSON.databases(from: Data(json.utf8))
        }
        let full = #"{"services": [{"uuid": "180f", "handle": 65535, "characteristics": [{"uuid": "2a19", "properties": ["read"]}]}]}"#
        #expect(throws: DatabaseError.json(path: "$.services[0]", reason: "from 0xffff it needs handles past 0xffff, the last there is")) {
            try DatabaseJSON.databases(from: Data(full.utf8))
        }
    }
}
