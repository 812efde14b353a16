import HCI

/// One record of a capture file, in a form common to every format.
///
/// `payload` shares storage with the reader's buffer; keeping it alive is safe, it only
/// costs one copy of that buffer when the reader next refills.
public struct CaptureRecord: Hashable, Sendable {
    /// What the record holds.
    public enum Kind: Hashable, Sendable {
        /// An HCI packet; `payload` starts after the H4 indicator.
        case hci(H4PacketType)
        /// A Linux monitor record that is not an HCI packet (New Index, Open Index, system
        /// note, user logging, mgmt traffic...), with its monitor opcode.
        case monitor(opcode: UInt16)
        /// An H4 record whose indicator byte is not a known packet type.
        case unknownH4(UInt8)
    }

    public var kind: Kind
    public var direction: CaptureDirection
    /// Linux monitor controller index (hciN); 0 for formats without one.
    public var controller: UInt16
    /// Microseconds since 1970-01-01T00:00:00Z.
    public var timestamp: Int64
    public var payload: ArraySlice<UInt8>
    /// Payload length before any snapshot truncation.
    public var originalLength: Int
    /// btsnoop's cumulative drop count; 0 elsewhere.
    public var drops: UInt32
    /// Position of the record in its file, counting from 0.
    public var index: Int
    /// Byte offset of the record's header in its file.
    public var byteOffset: Int64

    public init(kind: Kind, direction: CaptureDirection, controller: UInt16 = 0, timestamp: Int64,
                payload: ArraySlice<UInt8>, originalLength: Int? = nil, drops: UInt32 = 0,
                index: Int = 0, byteOffset: Int64 = 0) {
        self.kind = kind
        self.direction = direction
        self.controller = controller
        self.timestamp = timestamp
        self.payload = payload
        self.originalLength = originalLength ?? payload.count
        self.drops = drops
        self.index = index
        self.byteOffset = byteOffset
    }

    /// The H4 packet type, when the record is an HCI packet.
    @inlinable
    public var packetType: H4PacketType? {
        if case let .hci(type) = kind { return type }
        return nil
    }
}
