import ATT
import BluetoothCore
import GATT

extension ServerTestCatalog {
    static var discoveryTests: [ServerTestCase] {
        [discoverAllPrimaryServices, discoverPrimaryServiceByUUID, findIncludedServices, discoverAllCharacteristics,
         discoverCharacteristicsByUUID, discoverAllDescriptors]
    }

    static let discoverAllPrimaryServices = ServerTestCase(
        "GATT/SR/GAD/BV-01-C", "Discover All Primary Services", precondition: "none",
        spec: "Vol 3 Part G §4.4.1; Part F §3.4.4.9–§3.4.4.10") { p, t in
        RangeProcedure(range: .all, requestOpcode: .readByGroupTypeRequest,
                       request: { PDUCoding.bytes(.readByGroupTypeRequest(ReadByGroupTypeRequest(range: $0, attributeType: GATTAttributeType.primaryService))) },
                       check: checkGroups, judge: { .pass(note: "\($0.count) responses") }, mtu: p.mtu).step(t)
    }

    static let discoverPrimaryServiceByUUID = ServerTestCase(
        "GATT/SR/GAD/BV-02-C", "Discover Primary Service by Service UUID", precondition: "a primary service",
        spec: "Vol 3 Part G §4.4.2; Part F §3.4.3.3–§3.4.3.4") { p, t in
        let primaries = p.database.services.filter(\.isPrimary)
        guard let target = primaries.first(where: { $0.uuid.uint16 != nil }) ?? primaries.first else {
            return .finish(.notApplicable("discovery found no primary service"))
        }
        let value = target.uuid.attForm.littleEndianBytes[...]
        return RangeProcedure(
            range: .all, requestOpcode: .findByTypeValueRequest,
            request: { PDUCoding.bytes(.findByTypeValueRequest(FindByTypeValueRequest(range: $0, attributeType: 0x2800, value: value))) },
            check: { pdu, asked in
                guard case .findByTypeValueResponse(let r) = pdu else {
                    return .failure(.init("expected Find By Type Value Response, got \(pdu.opcode.name) (Vol 3 Part F §3.4.3.4)"))
                }
                let entries = Array(r.entries)
                for e in entries where e.groupEndHandle < e.foundHandle {
                    return .failure(.init("group end handle \(e.groupEndHandle) before found handle \(e.foundHandle)"))
                }
                return RangeProcedure.ordered(entries.map(\.foundHandle), inside: asked, what: "Find By Type Value Response")
                    .map { _ in entries.map(\.groupEndHandle).max() ?? asked.end }
            },
            judge: { pdus in
                let found = pdus.flatMap { pdu -> [FindByTypeValueResponse.Entry] in
                    if case .findByTypeValueResponse(let r) = pdu { Array(r.entries) } else { [] }
                }
                guard found.contains(where: { $0.foundHandle == target.handleRange.start && $0.groupEndHandle == target.handleRange.end }) else {
                    return .fail("the primary service \(target.uuid) at \(target.handleRange) is not among the answers")
                }
                return .pass(note: "found \(target.uuid) at \(target.handleRange)")
            }, mtu: p.mtu).step(t)
    }

    static let findIncludedServices = ServerTestCase(
        "GATT/SR/GAD/BV-03-C", "Find Included Services", precondition: "a service that includes another",
        spec: "Vol 3 Part G §4.5.1, §3.2; Part F §3.4.4.1–§3.4.4.2") { p, t in
        guard let service = p.database.services.first(where: { !$0.includes.isEmpty }) else {
            return .finish(.notApplicable("discovery found no include declaration"))
        }
        return RangeProcedure(
            range: service.handleRange, requestOpcode: .readByTypeRequest,
            request: { PDUCoding.bytes(.readByTypeRequest(ReadByTypeRequest(range: $0, attributeType: GATTAttributeType.include))) },
            check: { pdu, asked in
                guard case .readByTypeResponse(let r) = pdu else {
                    return .failure(.init("expected Read By Type Response, got \(pdu.opcode.name) (Vol 3 Part F §3.4.4.2)"))
                }
                guard r.length == 8 || r.length == 6 else {
                    return .failure(.init("include entries of \(r.length) octets: an include declaration is 6 octets, or 8 with "
                                          + "a 16-bit UUID (Vol 3 Part G §3.2)"))
                }
                return RangeProcedure.ordered(r.entries.map(\.handle), inside: asked, what: "Read By Type Response")
            },
            judge: { pdus in
                let handles = Set(pdus.flatMap { pdu -> [AttributeHandle] in
                    if case .readByTypeResponse(let r) = pdu { r.entries.map(\.handle) } else { [] }
                })
                let expected = Set(service.includes.map(\.handle))
                guard handles == expected else {
                    return .fail("includes found at \(handles.sorted()), the whole-database walk found \(expected.sorted())")
                }
                return .pass(note: "\(handles.count) includes in \(service.handleRange)")
            }, mtu: p.mtu).step(t)
    }

    static let discoverAllCharacteristics = ServerTestCase(
        "GATT/SR/GAD/BV-04-C", "Discover All Characteristics of a Service", precondition: "a service with a characteristic",
        spec: "Vol 3 Part G §4.6.1, §3.3.1; Part F §3.4.4.1–§3.4.4.2") { p, t in
        guard let service = p.database.services.first(where: { !$0.characteristics.isEmpty }) else {
            return .finish(.notApplicable("discovery found no characteristic"))
        }
        return characteristicWalk(service, p, t) { found in
            let expected = service.characteristics.map(\.declarationHandle)
            guard found.map(\.handle) == expected else {
                return .fail("declarations at \(found.map(\.handle)), the whole-database walk found \(expected)")
            }
            return .pass(note: "\(found.count) characteristics in \(service.handleRange)")
        }.step(t)
    }

    static let discoverCharacteristicsByUUID = ServerTestCase(
        "GATT/SR/GAD/BV-05-C", "Discover Characteristics by UUID", precondition: "a service with a characteristic",
        spec: "Vol 3 Part G §4.6.2, §3.3.1; Part F §3.4.4.1–§3.4.4.2") { p, t in
        guard let service = p.database.services.first(where: { !$0.characteristics.isEmpty }),
              let target = service.characteristics.last else {
            return .finish(.notApplicable("discovery found no characteristic"))
        }
        return characteristicWalk(service, p, t) { found in
            guard found.contains(where: { $0.handle == target.declarationHandle && $0.uuid == target.uuid }) else {
                return .fail("no declaration of \(target.uuid) at \(target.declarationHandle) among the answers")
            }
            return .pass(note: "found \(target.uuid) at \(target.declarationHandle)")
        }.step(t)
    }

    static let discoverAllDescriptors = ServerTestCase(
        "GATT/SR/GAD/BV-06-C", "Discover All Characteristic Descriptors", precondition: "a characteristic with a descriptor",
        spec: "Vol 3 Part G §4.7.1; Part F §3.4.3.1–§3.4.3.2") { p, t in
        guard let c = p.characteristics.first(where: { !$0.descriptors.isEmpty }), let range = c.descriptorRange else {
            return .finish(.notApplicable("discovery found no descriptor"))
        }
        return RangeProcedure(
            range: range, requestOpcode: .findInformationRequest,
            request: { PDUCoding.bytes(.findInformationRequest(FindInformationRequest(range: $0))) },
            check: { pdu, asked in
                guard case .findInformationResponse(let r) = pdu else {
                    return .failure(.init("expected Find Information Response, got \(pdu.opcode.name) (Vol 3 Part F §3.4.3.2)"))
                }
                return RangeProcedure.ordered(r.entries.map(\.handle), inside: asked, what: "Find Information Response")
            },
            judge: { pdus in
                let found = pdus.flatMap { pdu -> [AttributeHandle] in
                    if case .findInformationResponse(let r) = pdu { r.entries.map(\.handle) } else { [] }
                }
                let expected = c.descriptors.map(\.handle)
                guard found == expected else { return .fail("descriptors at \(found), the whole-database walk found \(expected)") }
                return .pass(note: "\(found.count) descriptors of \(c.uuid)")
            }, mtu: p.mtu).step(t)
    }

    /// Read By Group Type Response entries: one size per response (6 with 16-bit
    /// UUIDs, 20 with 128-bit, never mixed), in the range, ascending, groups not overlapping.
    @Sendable static func checkGroups(_ pdu: ATTPDU, _ asked: AttributeHandleRange) -> Result<AttributeHandle, RangeProcedure.Violation> {
        guard case .readByGroupTypeResponse(let r) = pdu else {
            return .failure(.init("expected Read By Group Type Response, got \(pdu.opcode.name) (Vol 3 Part F §3.4.4.10)"))
        }
        guard r.length == 6 || r.length == 20 else {
            return .failure(.init("service entries of \(r.length) octets: 6 (16-bit UUID) or 20 (128-bit UUID), one size "
                                  + "per response (Vol 3 Part F §3.4.4.10, Part G §4.4.1)"))
        }
        let entries = Array(r.entries)
        for (a, b) in zip(entries, entries.dropFirst()) where b.handle <= a.endGroupHandle {
            return .failure(.init("service at \(b.handle) starts inside the group \(a.handle)..\(a.endGroupHandle)"))
        }
        return RangeProcedure.ordered(entries.map(\.handle), inside: asked, what: "Read By Group Type Response")
            .map { _ in entries.last?.endGroupHandle ?? asked.end }
    }

    /// Read By Type 0x2803 over a service's range, each declaration checked (one size per
    /// response, 7 or 21 octets; the value right after the declaration).
    static func characteristicWalk(_ service: DiscoveredService, _ p: IUTProfile, _ t: Transcript,
                                   judge: @escaping @Sendable ([(handle: AttributeHandle, uuid: BluetoothUUID)]) -> ConformanceTestVerdict)
        -> RangeProcedure {
        RangeProcedure(
            range: service.handleRange, requestOpcode: .readByTypeRequest,
            request: { PDUCoding.bytes(.readByTypeRequest(ReadByTypeRequest(range: $0, attributeType: GATTAttributeType.characteristic))) },
            check: { pdu, asked in
                guard case .readByTypeResponse(let r) = pdu else {
                    return .failure(.init("expected Read By Type Response, got \(pdu.opcode.name) (Vol 3 Part F §3.4.4.2)"))
                }
                guard r.length == 7 || r.length == 21 else {
                    return .failure(.init("declaration entries of \(r.length) octets: 7 (16-bit UUID) or 21 (128-bit UUID), "
                                          + "one size per response (Vol 3 Part G §3.3.1, §4.6.1)"))
                }
                for e in r.entries {
                    let v = Array(e.value)
                    let valueHandle = UInt16(v[1]) | UInt16(v[2]) << 8
                    if valueHandle != e.handle.rawValue &+ 1 {
                        return .failure(.init("declaration at \(e.handle) names value handle \(AttributeHandle(valueHandle)); the "
                                              + "value follows its declaration immediately (Vol 3 Part G §3.3)"))
                    }
                }
                return RangeProcedure.ordered(r.entries.map(\.handle), inside: asked, what: "Read By Type Response")
            },
            judge: { pdus in
                judge(pdus.flatMap { pdu -> [(handle: AttributeHandle, uuid: BluetoothUUID)] in
                    guard case .readByTypeResponse(let r) = pdu else { return [] }
                    return r.entries.map { ($0.handle, BluetoothUUID(littleEndian: $0.value.dropFirst(3)) ?? BluetoothUUID(0)) }
                })
            }, mtu: p.mtu)
    }
}
