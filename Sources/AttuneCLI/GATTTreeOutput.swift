import ATTPresentation
import Foundation
import Attune

/// The GATT tree as `attune discover` and `attune demo` print it: services (secondary
/// ones too), each with its include declarations, then its characteristics with
/// properties and handles, then descriptors.
enum GATTTreeOutput {
    static func lines(_ services: [Service]) -> [String] {
        var out: [String] = []
        for s in services {
            out.append("service \(s.startHandle)..\(s.endHandle)  \(label(s.uuid))\(s.isPrimary ? "" : " (secondary)")")
            for i in s.includedServices ?? [] {
                out.append("  includes \(i.declarationHandle)  \(label(i.uuid))  service \(i.startHandle)..\(i.endHandle)")
            }
            for c in s.characteristics ?? [] {
                out.append("  characteristic \(c.valueHandle)  \(label(c.uuid))  [\(c.properties)]  declaration \(c.declarationHandle)")
                for d in c.descriptors ?? [] {
                    out.append("    descriptor \(d.handle)  \(label(d.uuid))")
                }
            }
        }
        return out
    }

    static func json(_ services: [Service]) -> JSONValue {
        .array(services.map { s in
            .object([
                ("uuid", .string(s.uuid.description)), ("name", name(s.uuid)), ("primary", .bool(s.isPrimary)),
                ("start", .int(Int(s.startHandle.rawValue))), ("end", .int(Int(s.endHandle.rawValue))),
                ("includes", .array((s.includedServices ?? []).map { i in
                    .object([
                        ("declaration", .int(Int(i.declarationHandle.rawValue))),
                        ("uuid", .string(i.uuid.description)), ("name", name(i.uuid)),
                        ("start", .int(Int(i.startHandle.rawValue))), ("end", .int(Int(i.endHandle.rawValue))),
                    ])
                })),
                ("characteristics", .array((s.characteristics ?? []).map { c in
                    .object([
                        ("uuid", .string(c.uuid.description)), ("name", name(c.uuid)),
                        ("properties", .array(c.properties.description.split(separator: ",").map {
                            .string($0.trimmingCharacters(in: .whitespaces))
                        })),
                        ("declaration", .int(Int(c.declarationHandle.rawValue))),
                        ("value", .int(Int(c.valueHandle.rawValue))),
                        ("descriptors", .array((c.descriptors ?? []).map { d in
                            .object([("uuid", .string(d.uuid.description)), ("name", name(d.uuid)),
                                     ("handle", .int(Int(d.handle.rawValue)))])
                        })),
                    ])
                })),
            ])
        })
    }

    /// "180D Heart Rate", or the bare UUID when it has no assigned name (or a demo one).
    static func label(_ uuid: BluetoothUUID) -> String {
        if let n = displayName(uuid) { return "\(uuid) \(n)" }
        return uuid.description
    }

    static func name(_ uuid: BluetoothUUID) -> JSONValue {
        displayName(uuid).map(JSONValue.string) ?? .null
    }

    static func displayName(_ uuid: BluetoothUUID) -> String? {
        switch uuid {
        case DemoPeripheral.customService: "Attune Demo Service"
        case DemoPeripheral.longReadCharacteristic: "Attune Demo Long Read (300 B)"
        case DemoPeripheral.longWriteCharacteristic: "Attune Demo Long Write (512 B)"
        case DemoPeripheral.indicateCharacteristic: "Attune Demo Indication"
        case DemoPeripheral.includingService: "Attune Demo Including Service"
        case DemoPeripheral.secondaryService: "Attune Demo Secondary Service"
        case DemoPeripheral.secondaryCharacteristic: "Attune Demo Secondary Value"
        default: uuid.name
        }
    }
}
