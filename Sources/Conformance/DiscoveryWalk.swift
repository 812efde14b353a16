import ATT
import BluetoothCore
import GATT

/// One step of the tester's own discovery. Each walk sends requests until the IUT says
/// there is no more, answers something unusable, or stops making progress: a bad answer
/// ends that walk only, and the tests that judge the rule it broke fail on their own
/// exchanges.
enum DiscoveryWalk: Hashable, Sendable {
    /// Exchange MTU with the tester's Client Rx MTU.
    case exchangeMTU(UInt16)
    /// Read By Group Type over the whole range for primary (0x2800) or secondary (0x2801) services.
    case services(primary: Bool)
    /// Read By Type 0x2802 (include declarations) over the whole range.
    case includes
    /// Read By Type 0x2803 (characteristic declarations) over the whole range.
    case characteristics
    /// Find Information over the whole range: every attribute handle and its type.
    case attributes
    /// Read (then Read Blob while parts come full) of one attribute's value.
    case value(AttributeHandle)

    /// A walk never sends more than this many requests, whatever the IUT answers.
    static let requestLimit = 4096
    /// The longest value a read follows with Read Blob (Vol 3 Part F §3.2.9).
    static let maximumValueLength = 512

    /// The next request, or nil when the walk is over.
    func nextRequest(_ t: Transcript, mtu: Int) -> [UInt8]? {
        guard t.sentCount < Self.requestLimit else { return nil }
        switch self {
        case .exchangeMTU(let rx):
            return t.sentCount == 0 ? PDUCoding.bytes(.exchangeMTURequest(ExchangeMTURequest(clientRxMTU: rx))) : nil
        case .services(let primary):
            let type = primary ? GATTAttributeType.primaryService : GATTAttributeType.secondaryService
            return nextStart(t).map {
                PDUCoding.bytes(.readByGroupTypeRequest(ReadByGroupTypeRequest(range: .init(start: $0, end: .max), attributeType: type)))
            }
        case .includes, .characteristics:
            let type = self == .includes ? GATTAttributeType.include : GATTAttributeType.characteristic
            return nextStart(t).map {
                PDUCoding.bytes(.readByTypeRequest(ReadByTypeRequest(range: .init(start: $0, end: .max), attributeType: type)))
            }
        case .attributes:
            return nextStart(t).map { PDUCoding.bytes(.findInformationRequest(FindInformationRequest(range: .init(start: $0, end: .max)))) }
        case .value(let handle):
            guard let last = t.lastReceived else { return PDUCoding.bytes(.readRequest(ReadRequest(handle: handle))) }
            let value = Self.value(of: t)
            guard let part = Self.part(last), part.count == mtu - 1, value.count <= Self.maximumValueLength else { return nil }
            return PDUCoding.bytes(.readBlobRequest(ReadBlobRequest(handle: handle, offset: UInt16(value.count))))
        }
    }

    /// Where the next request of a range walk starts: the handle after the last one
    /// the newest response named, as long as that moves forward.
    private func nextStart(_ t: Transcript) -> AttributeHandle? {
        guard let last = t.lastReceived else { return t.sentCount == 0 ? .min : nil }
        let previousStart = t.exchange.last { $0.direction == .testerToIUT }.flatMap { Self.requestStart($0.bytes) } ?? .min
        let reached: AttributeHandle?
        switch PDUCoding.decoded(last) {
        case .readByGroupTypeResponse(let r)?: reached = r.entries.map(\.endGroupHandle).max()
        case .readByTypeResponse(let r)?: reached = r.entries.map(\.handle).max()
        case .findInformationResponse(let r)?: reached = r.entries.map(\.handle).max()
        default: reached = nil
        }
        guard let reached, reached >= previousStart, let next = reached.successor else { return nil }
        return next
    }

    private static func requestStart(_ bytes: [UInt8]) -> AttributeHandle? {
        guard bytes.count >= 3 else { return nil }
        return AttributeHandle(UInt16(bytes[1]) | UInt16(bytes[2]) << 8)
    }

    /// The value part of a Read or Read Blob Response.
    static func part(_ bytes: [UInt8]) -> [UInt8]? {
        switch PDUCoding.decoded(bytes) {
        case .readResponse(let r)?: Array(r.value)
        case .readBlobResponse(let r)?: Array(r.value)
        default: nil
        }
    }

    /// The parts of a value walk put together.
    static func value(of t: Transcript) -> [UInt8] { t.received.compactMap(part).flatMap { $0 } }

    /// What the walk taught: folded into the profile.
    func absorb(_ t: Transcript, into profile: inout IUTProfile, clientRxMTU: UInt16) {
        let answers = t.received.compactMap(PDUCoding.decoded)
        switch self {
        case .exchangeMTU:
            profile.mtuExchange = t.exchange
            if case .exchangeMTUResponse(let r)? = answers.first, r.serverRxMTU >= 23 {
                profile.mtu = Int(min(clientRxMTU, r.serverRxMTU))
            }
        case .services(let primary):
            for case .readByGroupTypeResponse(let r) in answers {
                for e in r.entries where e.handle <= e.endGroupHandle {
                    guard let uuid = BluetoothUUID(littleEndian: e.value),
                          !profile.database.services.contains(where: { $0.handleRange.start == e.handle }) else { continue }
                    profile.database.services.append(DiscoveredService(
                        uuid: uuid, handleRange: .init(start: e.handle, end: e.endGroupHandle), isPrimary: primary))
                }
            }
            profile.database.services.sort { $0.handleRange.start < $1.handleRange.start }
        case .includes:
            for case .readByTypeResponse(let r) in answers {
                for e in r.entries where e.value.count == 4 || e.value.count == 6 {
                    let v = Array(e.value)
                    let start = AttributeHandle(UInt16(v[0]) | UInt16(v[1]) << 8)
                    let end = AttributeHandle(UInt16(v[2]) | UInt16(v[3]) << 8)
                    let uuid = v.count == 6 ? BluetoothUUID(UInt16(v[4]) | UInt16(v[5]) << 8)
                        : profile.database.services.first { $0.handleRange.start == start }?.uuid ?? BluetoothUUID(0)
                    guard let i = Self.service(containing: e.handle, in: profile.database) else { continue }
                    profile.database.services[i].includes.append(
                        DiscoveredInclude(handle: e.handle, serviceRange: .init(start: start, end: end), uuid: uuid))
                }
            }
        case .characteristics:
            var found: [DiscoveredCharacteristic] = []
            for case .readByTypeResponse(let r) in answers {
                for e in r.entries where e.value.count == 5 || e.value.count == 19 {
                    let v = Array(e.value)
                    guard let uuid = BluetoothUUID(littleEndian: v[3...]) else { continue }
                    found.append(DiscoveredCharacteristic(
                        declarationHandle: e.handle, properties: CharacteristicProperties(rawValue: v[0]),
                        valueHandle: AttributeHandle(UInt16(v[1]) | UInt16(v[2]) << 8), uuid: uuid))
                }
            }
            found.sort { $0.declarationHandle < $1.declarationHandle }
            for (n, var c) in found.enumerated() {
                guard let i = Self.service(containing: c.declarationHandle, in: profile.database) else { continue }
                let serviceEnd = profile.database.services[i].handleRange.end
                let nextDeclaration = n + 1 < found.count ? found[n + 1].declarationHandle.rawValue - 1 : serviceEnd.rawValue
                c.endHandle = AttributeHandle(max(c.valueHandle.rawValue, min(serviceEnd.rawValue, nextDeclaration)))
                profile.database.services[i].characteristics.append(c)
            }
        case .attributes:
            var seen = Set<AttributeHandle>()
            for case .findInformationResponse(let r) in answers {
                for e in r.entries where seen.insert(e.handle).inserted { profile.attributes.append((e.handle, e.type)) }
            }
            profile.attributes.sort { $0.handle < $1.handle }
            // Descriptors: what lies in a characteristic's range after its value.
            for s in profile.database.services.indices {
                for c in profile.database.services[s].characteristics.indices {
                    let ch = profile.database.services[s].characteristics[c]
                    guard let range = ch.descriptorRange else { continue }
                    profile.database.services[s].characteristics[c].descriptors = profile.attributes
                        .filter { range.contains($0.handle) }
                        .map { DiscoveredDescriptor(handle: $0.handle, uuid: $0.type) }
                }
            }
        case .value(let handle):
            if case .errorResponse(let e)? = answers.first {
                profile.values[handle] = .refused(e.errorCode)
            } else if case .readResponse? = answers.first, answers.dropFirst().allSatisfy(Self.endsValue),
                      Self.value(of: t).count <= Self.maximumValueLength {
                profile.values[handle] = .value(Self.value(of: t))
            } else if case .readResponse? = answers.first {
                profile.values[handle] = .longerThan(Self.value(of: t))
            } else {
                profile.values[handle] = .unknown("the read was not answered with a value")
            }
        }
    }

    /// A Read Blob answer that belongs to a value read: a part, or the error some servers
    /// give at the exact end of a value (Vol 3 Part F §3.4.4.5 allows both).
    private static func endsValue(_ pdu: ATTPDU) -> Bool {
        switch pdu {
        case .readBlobResponse: true
        case .errorResponse(let e): e.errorCode == .attributeNotLong || e.errorCode == .invalidOffset
        default: false
        }
    }

    static func service(containing handle: AttributeHandle, in db: DiscoveredDatabase) -> Int? {
        db.services.indices.last { db.services[$0].handleRange.contains(handle) }
    }
}
