import ATT
import Capture

/// Attaches the known causes to divergences of a server replay: behaviours of the captured
/// server that are not the spec's, changes the captured server's application made, gaps
/// in a database rebuilt from the capture, and consequences of an earlier divergence.
///
/// State carries across the conversations of one capture, in order.
public struct ReplayExplainer: Sendable {
    /// Whether the replayed database was rebuilt from the capture (so it lacks whatever
    /// the capture never revealed).
    public var databaseRebuilt: Bool
    /// Handles whose value diverged through a write, with the record of that divergence.
    var divergedValues: [UInt16: Int] = [:]
    /// Handles the captured client wrote, with the record of the latest write.
    var writtenAt: [UInt16: Int] = [:]
    /// Record of the latest Service Changed indication the captured server sent.
    var serviceChangedAt: Int?
    /// Value handles of Service Changed characteristics seen in discovery.
    var serviceChangedHandles: Set<UInt16> = []
    /// Characteristic properties by value handle, as discovery showed them.
    var properties: [UInt16: UInt8] = [:]

    public init(databaseRebuilt: Bool = true) {
        self.databaseRebuilt = databaseRebuilt
    }

    public mutating func explain(_ report: inout ReplayReport, in conversation: ATTConversation) {
        var next = 0
        for (i, pdu) in conversation.pdus.enumerated() {
            // Learn from the capture up to this PDU, so explanations use only the past.
            learn(pdu)
            while next < report.divergences.count, report.divergences[next].index == i {
                var d = report.divergences[next]
                d.cause = cause(of: d)
                remember(d)
                report.divergences[next] = d
                next += 1
            }
        }
    }

    mutating func learn(_ captured: CapturedATTPDU) {
        switch captured.pdu {
        case let .success(.writeRequest(w)):
            writtenAt[w.handle.rawValue] = captured.frame.recordIndex
        case let .success(.writeCommand(w)):
            writtenAt[w.handle.rawValue] = captured.frame.recordIndex
        case let .success(.readByTypeResponse(r)):
            for e in r.entries where e.value.count == 5 || e.value.count == 19 {
                let s = e.value.startIndex
                properties[UInt16(e.value[s + 1]) | UInt16(e.value[s + 2]) << 8] = e.value[s]
                guard e.value.count == 5 else { continue }
                if e.value[s + 3] == 0x05, e.value[s + 4] == 0x2A {
                    serviceChangedHandles.insert(UInt16(e.value[s + 1]) | UInt16(e.value[s + 2]) << 8)
                }
            }
        case let .success(.handleValueIndication(ind)):
            // Only handles that discovery showed to be Service Changed count.
            if serviceChangedHandles.contains(ind.handle.rawValue) { serviceChangedAt = captured.frame.recordIndex }
        default:
            break
        }
    }

    mutating func remember(_ d: ReplayDivergence) {
        guard case let .success(input) = d.input.pdu else { return }
        switch input {
        case let .writeRequest(w): divergedValues[w.handle.rawValue] = divergedValues[w.handle.rawValue] ?? d.input.frame.recordIndex
        case let .prepareWriteRequest(w): divergedValues[w.handle.rawValue] = divergedValues[w.handle.rawValue] ?? d.input.frame.recordIndex
        case let .writeCommand(w): divergedValues[w.handle.rawValue] = divergedValues[w.handle.rawValue] ?? d.input.frame.recordIndex
        default: break
        }
    }

    func cause(of d: ReplayDivergence) -> DivergenceCause? {
        guard case let .success(input) = d.input.pdu else { return nil }
        let expected = d.expectedDecoded, actual = d.actualDecoded
        // A push the captured server's application made that its own declaration does not allow.
        switch input {
        case let .handleValueIndication(p) where d.actual == nil:
            if let bits = properties[p.handle.rawValue], bits & 0x20 == 0 {
                return .pushNotDeclared(handle: p.handle, indication: true, properties: bits)
            }
        case let .handleValueNotification(p) where d.actual == nil:
            if let bits = properties[p.handle.rawValue], bits & 0x10 == 0 {
                return .pushNotDeclared(handle: p.handle, indication: false, properties: bits)
            }
        default:
            break
        }
        if case let .prepareWriteRequest(w) = input, case let .errorResponse(e)? = expected {
            if e.errorCode == .invalidAttributeValueLength, Int(w.offset) + w.partValue.count <= 512 {
                return .prepareWriteHeaderCounted(offset: w.offset, length: w.partValue.count)
            }
            if e.errorCode == .invalidOffset, w.offset > 0 {
                return .longWriteRejectedAtOffset(w.offset)
            }
        }
        if let handle = handleRead(by: input), let record = divergedValues[handle] {
            return .followsDivergence(record: record, handle: AttributeHandle(handle))
        }
        for handle in valueHandles(in: expected) + valueHandles(in: actual) {
            if let record = writtenAt[handle], record < d.input.frame.recordIndex {
                return .writeNotKept(handle: AttributeHandle(handle), record: record)
            }
        }
        if isDiscovery(input), let record = serviceChangedAt {
            return .databaseChanged(serviceChangedAt: record)
        }
        if case let .errorResponse(e)? = actual, databaseRebuilt,
           e.errorCode == .invalidHandle || e.errorCode == .attributeNotFound {
            return .notInRebuiltDatabase(e.handle)
        }
        if case .writeRequest = input, case let .errorResponse(e)? = expected, case .writeResponse? = actual,
           e.errorCode == .invalidAttributeValueLength || e.errorCode.rawValue >= 0x80 {
            return .applicationRejectedValue(e.errorCode)
        }
        return nil
    }

    func handleRead(by pdu: ATTPDU) -> UInt16? {
        switch pdu {
        case let .readRequest(r): return r.handle.rawValue
        case let .readBlobRequest(r): return r.handle.rawValue
        case let .prepareWriteRequest(w): return divergedValues[w.handle.rawValue] == nil ? nil : w.handle.rawValue
        case .executeWriteRequest: return divergedValues.keys.min()
        default: return nil
        }
    }

    /// Attribute handles whose values a read-type response carries.
    func valueHandles(in response: ATTPDU?) -> [UInt16] {
        if case let .readByTypeResponse(r)? = response { return r.entries.map(\.handle.rawValue) }
        return []
    }

    func isDiscovery(_ pdu: ATTPDU) -> Bool {
        switch pdu {
        case .readByGroupTypeRequest, .readByTypeRequest, .findInformationRequest, .findByTypeValueRequest: return true
        default: return false
        }
    }
}
