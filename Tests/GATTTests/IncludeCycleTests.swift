import Foundation
import Testing
import ATT
import GATT

/// A service that includes itself, or services that include one another in a circle, are
/// refused when the database is built: a client that follows includes (level after
/// level, as `discoverIncludedServices` does) would never finish such a server.
@Suite struct IncludeCycleTests {
    static func failure(_ build: () throws -> Any) -> String? {
        do { _ = try build(); return nil } catch { return "\(error)" }
    }

    @Test func aServiceThatIncludesItselfIsRefused() throws {
        let text = try #require(Self.failure {
            try AttributeDatabase { Service(BluetoothUUID(0x180F), id: "battery", includes: ["battery"]) {
                Characteristic(BluetoothUUID(0x2A19), properties: [.read])
            } }
        })
        #expect(text.contains("services[0] (id \"battery\") includes itself"), "\(text)")
        let json = #"{"services": [{"uuid": "180f", "id": "a", "includes": ["a"]}]}"#
        let viaJSON = try #require(Self.failure { try DatabaseJSON.serviceDefinitions(from: Data(json.utf8)) })
        #expect(viaJSON.contains("$.services[0].includes[0]") && viaJSON.contains("includes itself"), "\(viaJSON)")
    }

    @Test func aCycleOfIncludesIsRefusedNamingEveryService() throws {
        let json = #"{"services": [{"uuid": "180a", "id": "a", "includes": ["b"]}, {"uuid": "180f", "id": "b", "includes": ["c"]}, {"uuid": "1810", "primary": false, "id": "c", "includes": ["a"]}]}"#
        let text = try #require(Self.failure { try DatabaseJSON.databases(from: Data(json.utf8)) })
        #expect(text.contains("services[0] (id \"a\") → services[1] (id \"b\") → services[2] (id \"c\") → services[0] (id \"a\")"),
                "\(text)")
    }

    /// The flat form fixes every handle, so its includes are checked by the handles they
    /// point at: here 0x0001 includes 0x0004, and 0x0004 includes 0x0001.
    @Test func flatIncludesThatPointBackAreRefused() throws {
        let selfInclude = #"{"attributes": [{"handle": 1, "type": "2800", "value_hex": "0f18", "permission_bits": 1}, {"handle": 2, "type": "2802", "value_hex": "010003000f18", "permission_bits": 1}, {"handle": 3, "type": "2a19", "value_hex": "64", "permission_bits": 1}]}"#
        let one = try #require(Self.failure { try DatabaseJSON.databases(from: Data(selfInclude.utf8)) })
        #expect(one.contains("a service includes itself: primary service 180F at 0x0001…0x0003"), "\(one)")
        let attributes = [
            Attribute(handle: 1, type: GATTAttributeType.primaryService, permissions: .readOnly, value: [0x0A, 0x18], groupEnd: 3),
            Attribute(handle: 2, type: GATTAttributeType.include, permissions: .readOnly, value: [4, 0, 5, 0, 0x0F, 0x18]),
            Attribute(handle: 3, type: BluetoothUUID(0x2A29), permissions: .readOnly, value: [0x41]),
            Attribute(handle: 4, type: GATTAttributeType.secondaryService, permissions: .readOnly, value: [0x0F, 0x18], groupEnd: 5),
            Attribute(handle: 5, type: GATTAttributeType.include, permissions: .readOnly, value: [1, 0, 3, 0, 0x0A, 0x18]),
        ]
        let two = try #require(Self.failure { try AttributeDatabase(attributes: attributes) })
        #expect(two.contains("primary service 180A at 0x0001…0x0003 → secondary service 180F at 0x0004…0x0005 → primary service 180A"),
                "\(two)")
        // Adding the include that closes a cycle to a database that had none is refused too.
        var db = try AttributeDatabase(attributes: Array(attributes.prefix(4)))
        #expect(Self.failure { try db.insert([attributes[4]]) as Any } != nil)
    }

    /// Shared includes are no cycle: a diamond (a includes b and c, b includes c) and a
    /// long chain build, and a chain of thousands closed into a ring gets a short error.
    @Test func chainsAndDiamondsBuildButARingOfThousandsIsRefusedBriefly() throws {
        let diamond = try AttributeDatabase(services: [
            Service(BluetoothUUID(0x1800 + 1), id: "a", includes: ["b", "c"]),
            Service(BluetoothUUID(0x1800 + 2), primary: false, id: "b", includes: ["c"]),
            Service(BluetoothUUID(0x1800 + 3), primary: false, id: "c"),
        ])
        #expect(diamond.services.count == 3)
        let count = 20_000
        var chain = (0..<count).map { i in
            Service(BluetoothUUID(UInt16(0x2000 + i % 0x1000)), primary: i == 0, id: "s\(i)", includes: i + 1 < count ? ["s\(i + 1)"] : [])
        }
        #expect(try AttributeDatabase(services: chain).services.count == count)
        chain[count - 1].includes = ["s0"]
        let ring = try #require(Self.failure { try AttributeDatabase(services: chain) })
        #expect(ring.contains("services[0] (id \"s0\") → services[1] (id \"s1\")") && ring.contains("… 19992 more"), "\(ring)")
        #expect(ring.count < 1_000, "\(ring.count) characters")
    }
}
