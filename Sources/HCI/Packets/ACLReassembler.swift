/// Reassembles L2CAP PDUs from HCI ACL fragments (Vol 4 Part E §5.4.2, Vol 3 Part A §7.2),
/// separately for every (caller key, connection handle) pair.
///
/// The caller key says which stream a packet belongs to beyond its handle; a capture of
/// two controllers keys on (controller index, direction), for example, because both
/// controllers may use the same handle and each direction is fragmented independently.
///
/// Memory is bounded: a first fragment that declares a PDU longer than
/// ``maximumFrameLength`` is dropped and reported, fragments never grow a PDU past its
/// declared length, and at most ``maximumPendingFrames`` PDUs are in progress at once.
public struct ACLReassembler<Key: Hashable & Sendable>: Sendable {
    /// Why fragments were discarded.
    public enum Drop: Hashable, Sendable, CustomStringConvertible {
        /// A first fragment declared a PDU longer than the limit.
        case frameTooLong(declared: Int, limit: Int)
        /// A first fragment too short to hold the 2-byte L2CAP length field.
        case headerSplit(available: Int)
        /// A continuation arrived with no PDU in progress.
        case unexpectedContinuation(length: Int)
        /// A new first fragment arrived before the PDU in progress was complete.
        case incompleteFrame(received: Int, expected: Int)
        /// Fragments carried more bytes than the PDU declared.
        case overrun(expected: Int, received: Int)
        /// Too many PDUs were in progress at once.
        case tooManyPendingFrames(limit: Int)

        public var description: String {
            switch self {
            case let .frameTooLong(declared, limit):
                return "L2CAP PDU of \(declared) bytes exceeds the \(limit)-byte limit"
            case let .headerSplit(available):
                return "first fragment of \(available) bytes cannot hold the L2CAP length"
            case let .unexpectedContinuation(length):
                return "continuation of \(length) bytes with no PDU in progress"
            case let .incompleteFrame(received, expected):
                return "PDU abandoned after \(received) of \(expected) bytes"
            case let .overrun(expected, received):
                return "fragments carried \(received) bytes for a \(expected)-byte PDU"
            case let .tooManyPendingFrames(limit):
                return "more than \(limit) PDUs in progress"
            }
        }
    }

    /// What one ACL packet produced: a complete L2CAP PDU (header included), a drop, both
    /// (a new PDU that displaced an unfinished one), or neither (more fragments needed).
    public struct Output: Sendable {
        public var frame: ArraySlice<UInt8>?
        public var dropped: Drop?

        @inlinable
        public init(frame: ArraySlice<UInt8>?, dropped: Drop?) {
            self.frame = frame
            self.dropped = dropped
        }
    }

    @usableFromInline
    struct Pending: Sendable {
        @usableFromInline var key: Key
        @usableFromInline var handle: UInt16
        @usableFromInline var bytes: [UInt8]
        /// L2CAP header plus payload length.
        @usableFromInline var expected: Int

        @inlinable
        init(key: Key, handle: UInt16, bytes: [UInt8], expected: Int) {
            self.key = key
            self.handle = handle
            self.bytes = bytes
            self.expected = expected
        }
    }

    /// The longest L2CAP PDU, header included, that will be reassembled.
    public let maximumFrameLength: Int
    /// How many PDUs may be in progress at once.
    public let maximumPendingFrames: Int
    /// PDUs in progress. A short array beats a dictionary here: real links have one or
    /// two PDUs in progress at a time, and the limit keeps the scan bounded.
    @usableFromInline var pending: [Pending] = []

    /// - Parameter maximumFrameLength: defaults to the largest basic frame, 65535 + 4.
    public init(maximumFrameLength: Int = 65535 + L2CAPBasicFrame.headerLength, maximumPendingFrames: Int = 64) {
        self.maximumFrameLength = maximumFrameLength
        self.maximumPendingFrames = maximumPendingFrames
    }

    /// Number of PDUs in progress.
    public var pendingCount: Int { pending.count }

    @inlinable
    func pendingIndex(_ key: Key, _ handle: UInt16) -> Int? {
        for i in pending.indices where pending[i].handle == handle && pending[i].key == key { return i }
        return nil
    }

    /// Feeds one ACL packet.
    @inlinable
    public mutating func receive(_ packet: ACLDataPacket, key: Key) -> Output {
        let data = packet.data
        if packet.boundary.isStart {
            var displaced: Drop?
            if !pending.isEmpty, let i = pendingIndex(key, packet.handle) {
                let old = pending.remove(at: i)
                displaced = .incompleteFrame(received: old.bytes.count, expected: old.expected)
            }
            guard data.count >= 2 else {
                return Output(frame: nil, dropped: displaced ?? .headerSplit(available: data.count))
            }
            let s = data.startIndex
            let expected = Int(UInt16(data[s]) | UInt16(data[s &+ 1]) &<< 8) &+ L2CAPBasicFrame.headerLength
            if expected > maximumFrameLength {
                return Output(frame: nil, dropped: displaced ?? .frameTooLong(declared: expected, limit: maximumFrameLength))
            }
            if data.count == expected {
                return Output(frame: data, dropped: displaced)
            }
            if data.count > expected {
                return Output(frame: nil, dropped: displaced ?? .overrun(expected: expected, received: data.count))
            }
            if pending.count >= maximumPendingFrames {
                return Output(frame: nil, dropped: displaced ?? .tooManyPendingFrames(limit: maximumPendingFrames))
            }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(expected)
            bytes.append(contentsOf: data)
            pending.append(Pending(key: key, handle: packet.handle, bytes: bytes, expected: expected))
            return Output(frame: nil, dropped: displaced)
        }
        guard let i = pending.isEmpty ? nil : pendingIndex(key, packet.handle) else {
            return Output(frame: nil, dropped: .unexpectedContinuation(length: data.count))
        }
        let total = pending[i].bytes.count &+ data.count
        let expected = pending[i].expected
        if total > expected {
            pending.remove(at: i)
            return Output(frame: nil, dropped: .overrun(expected: expected, received: total))
        }
        if total == expected {
            var done = pending.remove(at: i)
            done.bytes.append(contentsOf: data)
            return Output(frame: done.bytes[...], dropped: nil)
        }
        pending[i].bytes.append(contentsOf: data)
        return Output(frame: nil, dropped: nil)
    }

    /// Forgets every PDU in progress on a connection handle, e.g. after Disconnection
    /// Complete, and returns how many were discarded.
    @discardableResult
    public mutating func reset(handle: UInt16, key: Key) -> Int {
        guard let i = pendingIndex(key, handle) else { return 0 }
        pending.remove(at: i)
        return 1
    }
}
