/// HCI_Number_Of_Completed_Packets (event 0x13, Vol 4 Part E §7.7.19): how many ACL
/// packets the controller finished per connection handle, freeing its buffers.
public struct NumberOfCompletedPackets: Hashable, Sendable {
    public struct Entry: Hashable, Sendable {
        public var handle: UInt16
        public var completedPackets: UInt16

        public init(handle: UInt16, completedPackets: UInt16) {
            self.handle = handle
            self.completedPackets = completedPackets
        }
    }

    public var entries: [Entry]

    /// Entries are read as (handle, count) pairs, the layout controllers send.
    public init(decoding bytes: ArraySlice<UInt8>) throws(HCIDecodingError) {
        var r = PacketReader(bytes, structure: "Number Of Completed Packets")
        let count = Int(try r.uint8("num handles"))
        try r.need(count &* 4, "handle entries")
        entries = []
        entries.reserveCapacity(count)
        for _ in 0..<count {
            let handle = try r.uint16("connection handle") & 0x0FFF
            entries.append(Entry(handle: handle, completedPackets: try r.uint16("num completed packets")))
        }
    }
}
