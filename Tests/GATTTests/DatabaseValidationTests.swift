import Foundation
import Testing
import ATT
@testable import GATT

/// Databases are checked against what a server can honour: values of at most 512 bytes
/// (Vol 3 Part F §3.2.9), numeric fields in range, explicit handles placed where asked or
/// refused with what is in the way, and errors a few lines long however broken the file.
@Suite struct DatabaseValidationTests {
    static func services(_ characteristic: String, service: String = "") -> Data {
        Data(#"{"services": [{"uuid": "180f"\#(service), "characteristics": [{"uuid": "2a19", "properties": ["read", "write"]\#(characteristic)}]}]}"#.utf8)
    }

    static func error(_ data: Data) -> DatabaseError? {
        do {
            _ = try DatabaseJSON.serviceDefinitions(from: data)
            _ = try DatabaseJSON.databases(from: data)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [513, 600])
    func valuesOverFiveHundredTwelveBytesAreRefused(length: Int) {
        let hex = String(repeating: "ab", count: length)
        #expect(Self.error(Self.services(#", "value_hex": "\#(hex)""#))
                == .json(path: "$.services[0].characteristics[0].value_hex",
                         reason: "\(length) bytes; attribute values are at most 512 (Vol 3 Part F §3.2.9)"))
        let text = String(repeating: "x", count: length)
        #expect(Self.error(Self.services(#", "descriptors": [{"uuid": "2901", "value_text": "\#(text)"}]"#))
                == .json(path: "$.services[0].characteristics[0].descriptors[0].value_text",
                         reason: "\(length) bytes; attribute values are at most 512 (Vol 3 Part F §3.2.9)"))
        // The Swift definitions and the flat form are held to the same limit.
        #expect(throws: DatabaseError.valueOverLimit(3, length: length)) {
            try AttributeDatabase { Service(BluetoothUUID(0x180F)) {
                Characteristic(BluetoothUUID(0x2A19), properties: [.read], value: Array(repeating: 1, count: length))
            } }
        }
        let flat = #"{"attributes": [{"handle": 1, "type": "2800", "value_hex": "0f18", "permission_bits": 1}, {"handle": 2, "type": "2a19", "permission_bits": 1, "value_hex": "\#(hex)"}]}"#
        #expect(throws: DatabaseError.json(path: "$.attributes[1].value_hex",
                                          reason: "\(length) bytes; attribute values are at most 512 (Vol 3 Part F §3.2.9)")) {
            try DatabaseJSON.databases(from: Data(flat.utf8))
        }
        #expect(Self.error(Self.services(#", "value_hex": "\#(String(repeating: "ab", count: 512))""#)) == nil)
    }

    @Test(arguments: ["-1", "70000", "513", "1.5", "true", "\"10\""])
    func maximumLengthsOutsideZeroToFiveHundredTwelveAreRefused(maxLength: String) {
        let error = Self.error(Self.services(#", "max_length": \#(maxLength)"#))
        guard case let .json(path, reason)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(path == "$.services[0].characteristics[0].max_length")
        #expect(reason.hasSuffix("is outside 0…512; attribute values are at most 512 bytes (Vol 3 Part F §3.2.9)"), "\(reason)")
        #expect(throws: DatabaseError.maximumLengthOutOfRange(3, 70000)) {
            try AttributeDatabase { Service(BluetoothUUID(0x180F)) {
                Characteristic(BluetoothUUID(0x2A19), properties: [.read], maximumLength: 70000)
            } }
        }
        #expect(Self.error(Self.services(#", "max_length": 2, "value_hex": "010203""#))
                == .json(path: "$.services[0].characteristics[0].max_length", reason: "2 is shorter than the initial value (3 bytes)"))
        #expect(Self.error(Self.services(#", "max_length": 0"#)) == nil)
    }

    @Test(arguments: ["-1", "70000", "2.5", "false"])
    func reservedHandlesAreRangeChecked(reserved: String) {
        #expect(Self.error(Self.services("", service: #", "reserved_handles": \#(reserved)"#))
                == .json(path: "$.services[0].reserved_handles", reason: "expected a whole number 0…65535, not \(reserved)"))
    }

    @Test func otherNumbersAreRangeChecked() {
        #expect(Self.error(Self.services("", service: #", "handle": 70000"#))
                == .json(path: "$.services[0].handle", reason: "expected a handle 1…0xffff, not 70000"))
        #expect(Self.error(Self.services(#", "handle": 0"#))
                == .json(path: "$.services[0].characteristics[0].handle", reason: "expected a handle 1…0xffff, not 0"))
        #expect(Self.error(Data(#"{"services": [{"uuid": "180f", "characteristics": [{"uuid": "2a19", "properties": 256}]}]}"#.utf8))
                == .json(path: "$.services[0].characteristics[0].properties", reason: "the property bits are 0…255, not 256"))
        #expect(Self.error(Self.services(#", "access": {"read": {"min_key_size": 17}}"#))
                == .json(path: "$.services[0].characteristics[0].access.read.min_key_size", reason: "expected 0…16, not 17"))
    }

    @Test func explicitHandlesAreHonoured() throws {
        // A characteristic at a free explicit handle: its service grows to hold it.
        let db = try AttributeDatabase {
            Service(BluetoothUUID(0x180F)) {
                Characteristic(BluetoothUUID(0x2A19), properties: [.read], handle: 0x0100)
            }
            Service(BluetoothUUID(0x180A)) { Characteristic(BluetoothUUID(0x2A29), properties: [.read]) }
        }
        #expect(db.services.map(\.range) == [AttributeHandleRange(start: 1, end: 0x0101),
                                             AttributeHandleRange(start: 0x0102, end: 0x0104)])
        #expect(db.characteristic(valueHandle: 0x0101)?.uuid == BluetoothUUID(0x2A19))
        // The first service's handle, placed after services already published.
        let published = try AttributeDatabase { Service(BluetoothUUID(0x1800)) { Characteristic(BluetoothUUID(0x2A00), properties: [.read]) } }
        let placed = try published.attributes(placing: [
            Service(BluetoothUUID(0x180D), handle: 0x0100) { Characteristic(BluetoothUUID(0x2A37), properties: [.read]) },
            Service(BluetoothUUID(0x180F)) { Characteristic(BluetoothUUID(0x2A19), properties: [.read]) },
        ])
        #expect(placed.filter(\.isServiceDeclaration).map(\.handle) == [0x0100, 0x0103])
        // A service without a handle goes after the one before it, past a range an
        // explicit one took.
        let around = try published.attributes(placing: [
            Service(BluetoothUUID(0x180D), handle: 0x0010) { Characteristic(BluetoothUUID(0x2A37), properties: [.read]) },
            Service(BluetoothUUID(0x180F), handle: 0x0004) { Characteristic(BluetoothUUID(0x2A19), properties: [.read]) },
            Service(BluetoothUUID(0x180A), characteristics: (0..<10).map { CharacteristicDefinition(BluetoothUUID(0x2A29 + UInt16($0)), properties: [.read]) }),
        ])
        #expect(around.filter(\.isServiceDeclaration).map(\.handle) == [0x0010, 0x0004, 0x0013])
    }

    @Test func handlesThatCannotBeHonouredAreRefusedWithTheReason() throws {
        let published = try AttributeDatabase { Service(BluetoothUUID(0x1800)) { Characteristic(BluetoothUUID(0x2A00), properties: [.read]) } }
        #expect(throws: DatabaseError.placement(path: "services[0].handle",
                                               reason: "0x0002…0x0004 overlaps service 1800 at 0x0001…0x0003, already published")) {
            try published.attributes(placing: [Service(BluetoothUUID(0x180D), handle: 0x0002) {
                Characteristic(BluetoothUUID(0x2A37), properties: [.read])
            }])
        }
        let overlapping = #"{"services": [{"uuid": "180f", "handle": 16, "characteristics": [{"uuid": "2a19", "properties": ["read"]}]}, {"uuid": "180a", "handle": 17}]}"#
        #expect(Self.error(Data(overlapping.utf8))
                == .json(path: "$.services[1].handle", reason: "0x0011…0x0011 overlaps services[0] (180F at 0x0010…0x0012)"))
        let backwards = #"{"services": [{"uuid": "180f", "characteristics": [{"uuid": "2a19", "properties": ["read"], "handle": 16}, {"uuid": "2a1a", "properties": ["read"], "handle": 17}]}]}"#
        #expect(Self.error(Data(backwards.utf8))
                == .json(path: "$.services[0].characteristics[1].handle",
                         reason: "0x0011 comes before 0x0012, the first handle after characteristics[0]; a characteristic follows what comes before it in its service"))
        let include = #"{"services": [{"uuid": "180f", "includes": ["nobody"]}]}"#
        #expect(Self.error(Data(include.utf8)) == .json(path: "$.services[0].includes[0]", reason: "no service has the id \"nobody\""))
    }

    /// Past 0xffff handles: one short line, not every service listed.
    @Test func aDatabasePastTheLastHandleGetsAShortError() throws {
        let service = #"{"uuid": "180f", "characteristics": [{"uuid": "2a19", "properties": ["read"]}, {"uuid": "2a1a", "properties": ["read"]}]}"#
        let data = Data(#"{"services": [\#(Array(repeating: service, count: 14_000).joined(separator: ","))]}"#.utf8)
        let error = try #require(Self.error(data))
        #expect(error == .json(path: "$.services[13107]", reason: "no handles left: the services before it end at 0xffff"))
        #expect(error.description.count < 200)
    }

    @Test func manyProblemsAreCountedNotAllListed() throws {
        let bad = #"{"uuid": "180f", "reserved_handles": -1, "characteristics": [{"uuid": "2a19", "properties": ["read"], "max_length": 70000}]}"#
        let data = Data(#"{"services": [\#(Array(repeating: bad, count: 500).joined(separator: ","))]}"#.utf8)
        let error = try #require(Self.error(data))
        guard case let .problems(shown, total) = error else { Issue.record("\(error)"); return }
        #expect(total == 1000)
        #expect(shown.count == 10)
        #expect(shown.first == DatabaseProblem(path: "$.services[0].reserved_handles", reason: "expected a whole number 0…65535, not -1"))
        let lines = error.description.split(separator: "\n")
        #expect(lines.first == "1000 problems:")
        #expect(lines.last == "  and 990 more")
        #expect(error.description.count < 2000)
        // Text from the file is cut short in errors too.
        let long = String(repeating: "q", count: 100_000)
        let named = try #require(Self.error(Self.services(#", "access": "\#(long)""#)))
        #expect(named.description.count < 200)
    }
}
