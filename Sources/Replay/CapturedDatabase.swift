import ATT
import Capture

/// A server's attribute database as far as a captured conversation reveals it, rebuilt
/// from the responses to discovery, reads and writes. Replay as a server uses it when no
/// database is given.
///
/// Only initial state is recorded: a value read after the capture wrote that attribute
/// is not taken as its initial value.
public struct CapturedDatabase: Sendable {
    public private(set) var attributes: [AttributeHandle: CapturedAttribute] = [:]
    /// Service ranges by start handle: a capture may reveal thousands, each looked up by
    /// its start as the database is built.
    public private(set) var servicesByStart: [AttributeHandle: CapturedService] = [:]
    /// Services in handle order.
    public var services: [CapturedService] { servicesByStart.values.sorted { $0.start < $1.start } }

    /// Attributes in handle order.
    public var sortedAttributes: [CapturedAttribute] { attributes.values.sorted { $0.handle < $1.handle } }

    /// Handles written with what can only be a Client Characteristic Configuration value.
    var configurationWrites: Set<AttributeHandle> = []

    /// Handles the capture wrote so far: later reads of them do not show initial values.
    var written: Set<AttributeHandle> = []

    /// Nothing learned yet; see ``learn(from:)``.
    public init() {}

    public init(conversation: ATTConversation) {
        self.init(conversations: [conversation])
    }

    /// Rebuilds one server's database from several conversations with it (several
    /// connections, or both ends of one), in capture order.
    public init(conversations: [ATTConversation]) {
        for conversation in conversations { learn(from: conversation) }
        inferClientConfigurations()
    }

    /// Learns what one more conversation with the server reveals, after those learned
    /// before it. Call ``inferClientConfigurations()`` once all are learned (on a copy, to
    /// go on learning).
    public mutating func learn(from conversation: ATTConversation) {
        let mtu = conversation.mtu
        for t in conversation.transactions {
            guard let r = t.response,
                  case let .success(request) = conversation.pdus[t.request].pdu,
                  case let .success(response) = conversation.pdus[r].pdu
            else { continue }
            // Moved out and back, so that the set stays uniquely referenced (no copy).
            var written = self.written
            self.written = []
            learn(request, response, mtu: mtu, written: &written)
            self.written = written
        }
    }

    /// A handle the capture never typed, written with 0x0000–0x0003 just after the value
    /// of a characteristic that notifies or indicates, is that characteristic's CCCD:
    /// clients learn such handles from descriptor discovery the capture may not hold.
    public mutating func inferClientConfigurations() {
        var characteristics: [(declaration: AttributeHandle, value: AttributeHandle, properties: UInt8)] = []
        for a in attributes.values where a.type == BluetoothUUID(0x2803) {
            guard let v = a.value, v.count == 5 || v.count == 19 else { continue }
            characteristics.append((a.handle, AttributeHandle(UInt16(v[1]) | UInt16(v[2]) << 8), v[0]))
        }
        // Sorted lists searched by halving: a hostile capture may hold 65,535 of each.
        let byValue = characteristics.sorted { $0.value < $1.value }
        let declarations = characteristics.map(\.declaration).sorted()
        let starts = servicesByStart.keys.sorted()
        /// Whether a sorted list holds a handle in (low, high].
        func holds(_ list: [AttributeHandle], after low: AttributeHandle, upTo high: AttributeHandle) -> Bool {
            let i = Self.firstIndex(in: list) { $0 > low }
            return i < list.count && list[i] <= high
        }
        for handle in configurationWrites where attributes[handle]?.type == nil {
            let i = Self.firstIndex(in: byValue) { $0.value >= handle }
            guard i > 0 else { continue }
            let owner = byValue[i - 1]
            guard owner.properties & 0x30 != 0,
                  !holds(declarations, after: owner.value, upTo: handle),
                  !holds(starts, after: owner.value, upTo: handle)
            else { continue }
            attribute(handle) { a in
                a.type = BluetoothUUID(0x2902)
                if a.value == nil { a.value = [0, 0]; a.valueIsComplete = true }
                a.writable = true
            }
        }
    }

    /// A characteristic that notifies or indicates has a Client Characteristic
    /// Configuration (Vol 3 Part G §3.3.1.1), but a capture without descriptor discovery
    /// never shows it, and a recording served without one cannot be subscribed to. Each
    /// such characteristic with no CCCD in its range gets one at the handle after its
    /// value, where servers put it, when the capture never typed that handle and it lies
    /// in the characteristic's range (before the next declaration, within its service).
    /// For serving a recording; replay compares with the capture and adds nothing.
    /// Returns how many were added.
    @discardableResult
    public mutating func inferMissingClientConfigurations() -> Int {
        var characteristics: [(declaration: AttributeHandle, value: AttributeHandle, properties: UInt8)] = []
        var configurations: [AttributeHandle] = []
        for a in attributes.values {
            if a.type == BluetoothUUID(0x2902) { configurations.append(a.handle) }
            guard a.type == BluetoothUUID(0x2803), let v = a.value, v.count == 5 || v.count == 19 else { continue }
            characteristics.append((a.handle, AttributeHandle(UInt16(v[1]) | UInt16(v[2]) << 8), v[0]))
        }
        configurations.sort()
        let declarations = characteristics.map(\.declaration).sorted()
        let services = self.services
        let starts = services.map(\.start)
        var added = 0
        for c in characteristics where c.properties & 0x30 != 0 && c.value > c.declaration && c.value.rawValue < 0xFFFF {
            let next = AttributeHandle(c.value.rawValue + 1)
            // The characteristic's last handle: before the next declaration or service,
            // and within the service holding it.
            var end = AttributeHandle(0xFFFF)
            let d = Self.firstIndex(in: declarations) { $0 > c.value }
            if d < declarations.count { end = min(end, AttributeHandle(declarations[d].rawValue - 1)) }
            let s = Self.firstIndex(in: starts) { $0 > c.value }
            if s < starts.count { end = min(end, AttributeHandle(starts[s].rawValue - 1)) }
            let owner = Self.firstIndex(in: starts) { $0 > c.declaration }
            if owner > 0, services[owner - 1].end >= c.declaration { end = min(end, services[owner - 1].end) }
            guard next <= end, attributes[next]?.type == nil else { continue }
            let k = Self.firstIndex(in: configurations) { $0 >= next }
            if k < configurations.count, configurations[k] <= end { continue }
            attribute(next) { a in
                a.type = BluetoothUUID(0x2902)
                if a.value == nil { a.value = [0, 0]; a.valueIsComplete = true }
                a.writable = true
            }
            added += 1
        }
        return added
    }

    /// The first index of a list, sorted so that `isAfter` is false then true, where it is true.
    static func firstIndex<T>(in list: [T], where isAfter: (T) -> Bool) -> Int {
        var low = 0, high = list.count
        while low < high {
            let mid = (low + high) / 2
            if isAfter(list[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }

    /// The longest value an attribute may have (Vol 3 Part F §3.2.9): a capture showing
    /// more (Read Blobs past it) is not believed beyond it.
    public static let maximumValueLength = 512
    /// The most value bytes a rebuilt database holds in all, so that a hostile capture
    /// (65,535 attributes of 512 bytes) cannot make replay's memory grow past its bound;
    /// a real database holds a few kilobytes.
    public static let valueBytesBound = 2 << 20

    /// Value bytes held.
    public private(set) var valueBytes = 0
    /// Counts the changes to what the database holds, so that a replay rebuilding it as
    /// the capture streams knows when there is something new without keeping a copy.
    var revision = 0
    /// Value bytes the capture showed but the database did not keep: past
    /// ``maximumValueLength`` for one attribute, or past ``valueBytesBound`` in all.
    public private(set) var droppedValueBytes = 0

    mutating func attribute(_ handle: AttributeHandle, _ body: (inout CapturedAttribute) -> Void) {
        let old = attributes[handle]
        var a = old ?? CapturedAttribute(handle: handle)
        body(&a)
        let before = old?.value?.count ?? 0
        if var value = a.value, value.count != before {
            if value.count > Self.maximumValueLength {
                droppedValueBytes += value.count - Self.maximumValueLength
                value.removeSubrange(Self.maximumValueLength...)
                a.value = value
            }
            if valueBytes - before + value.count > Self.valueBytesBound {
                droppedValueBytes += max(0, value.count - before)
                a.value = old?.value
                a.valueIsComplete = old?.valueIsComplete ?? false
            }
        }
        valueBytes += (a.value?.count ?? 0) - before
        if a != old { revision += 1 }
        attributes[handle] = a
    }

    mutating func addService(_ s: CapturedService) {
        if servicesByStart[s.start] == nil {
            servicesByStart[s.start] = s
            revision += 1
        }
    }

    mutating func learn(_ request: ATTPDU, _ response: ATTPDU, mtu: Int, written: inout Set<AttributeHandle>) {
        switch (request, response) {
        case let (.readByGroupTypeRequest(q), .readByGroupTypeResponse(p)):
            let limit = min(mtu - 6, 251)
            for e in p.entries {
                attribute(e.handle) { a in
                    a.type = q.attributeType
                    if a.value == nil { a.value = Array(e.value); a.valueIsComplete = e.value.count < limit }
                }
                addService(CapturedService(start: e.handle, end: e.endGroupHandle,
                                           uuid: BluetoothUUID(littleEndian: e.value),
                                           isPrimary: q.attributeType == BluetoothUUID(0x2800)))
            }
        case let (.readByTypeRequest(q), .readByTypeResponse(p)):
            let limit = min(mtu - 4, 253)
            for e in p.entries {
                attribute(e.handle) { a in
                    a.type = q.attributeType
                    if a.value == nil, !written.contains(e.handle) {
                        a.value = Array(e.value)
                        a.valueIsComplete = e.value.count < limit
                    }
                }
                // A characteristic declaration names its value attribute and that one's type.
                if q.attributeType == BluetoothUUID(0x2803), e.value.count == 5 || e.value.count == 19 {
                    let s = e.value.startIndex
                    let valueHandle = AttributeHandle(UInt16(e.value[s + 1]) | UInt16(e.value[s + 2]) << 8)
                    if let uuid = BluetoothUUID(littleEndian: e.value[(s + 3)...]), valueHandle.isValid {
                        attribute(valueHandle) { $0.type = uuid }
                    }
                }
            }
        case let (.findInformationRequest, .findInformationResponse(p)):
            for e in p.entries { attribute(e.handle) { $0.type = e.type } }
        case let (.findByTypeValueRequest(q), .findByTypeValueResponse(p)):
            for e in p.entries {
                attribute(e.foundHandle) { a in
                    a.type = BluetoothUUID(q.attributeType)
                    a.value = Array(q.value)
                    a.valueIsComplete = true
                }
                if q.attributeType == 0x2800 || q.attributeType == 0x2801 {
                    addService(CapturedService(start: e.foundHandle, end: e.groupEndHandle,
                                               uuid: BluetoothUUID(littleEndian: q.value),
                                               isPrimary: q.attributeType == 0x2800))
                }
            }
        case let (.readRequest(q), .readResponse(p)):
            attribute(q.handle) { a in
                a.readable = true
                if !written.contains(q.handle) {
                    a.value = Array(p.value)
                    a.valueIsComplete = p.value.count < mtu - 1
                }
            }
        case let (.readBlobRequest(q), .readBlobResponse(p)):
            attribute(q.handle) { a in
                a.readable = true
                guard !written.contains(q.handle), let value = a.value, value.count == Int(q.offset) else { return }
                a.value = value + p.value
                a.valueIsComplete = p.value.count < mtu - 1
            }
        case let (.readRequest, .errorResponse(e)), let (.readBlobRequest, .errorResponse(e)):
            // The Error Response names the handle that failed.
            if e.errorCode == .readNotPermitted { attribute(e.handle) { $0.readable = false } }
        case let (.writeRequest(q), .writeResponse):
            written.insert(q.handle)
            attribute(q.handle) { $0.writable = true }
            if q.value.count == 2, q.value[q.value.startIndex + 1] == 0, q.value[q.value.startIndex] <= 3 {
                if configurationWrites.insert(q.handle).inserted { revision += 1 }
            }
        case let (.prepareWriteRequest(q), .prepareWriteResponse):
            written.insert(q.handle)
            attribute(q.handle) { $0.writable = true }
        case let (.writeRequest, .errorResponse(e)):
            if e.errorCode == .writeNotPermitted { attribute(e.handle) { $0.writable = false } }
        default:
            break
        }
    }
}
