import HCI
import Testing

/// ACL fragments become L2CAP PDUs per (key, handle), with bounded memory.
@Suite struct ACLReassemblerTests {
    /// An L2CAP frame of `length` payload bytes on CID 4.
    func frame(_ length: Int, fill: UInt8 = 0xA5) -> [UInt8] {
        [UInt8(length & 0xFF), UInt8(length >> 8), 0x04, 0x00] + [UInt8](repeating: fill, count: length)
    }

    func packet(_ handle: UInt16, _ boundary: ACLPacketBoundary, _ data: [UInt8]) -> ACLDataPacket {
        ACLDataPacket(handle: handle, boundary: boundary, data: data[...])
    }

    @Test func singleFragmentIsPassedThroughWithoutCopying() {
        var r = ACLReassembler<Int>()
        let bytes = frame(5)
        let out = r.receive(packet(0x40, .firstFlushable, bytes), key: 0)
        #expect(out.frame.map(Array.init) == bytes)
        #expect(out.dropped == nil)
        #expect(r.pendingCount == 0)
    }

    @Test(arguments: [ACLPacketBoundary.firstNonFlushable, .firstFlushable, .complete])
    func fragmentsReassemble(_ start: ACLPacketBoundary) {
        var r = ACLReassembler<Int>()
        let whole = frame(500)
        var i = 0
        var result: ArraySlice<UInt8>?
        while i < whole.count {
            let chunk = Array(whole[i..<min(i + 27, whole.count)])
            let out = r.receive(packet(1, i == 0 ? start : .continuing, chunk), key: 0)
            #expect(out.dropped == nil)
            if i + 27 < whole.count { #expect(out.frame == nil) } else { result = out.frame }
            i += 27
        }
        #expect(result.map(Array.init) == whole)
        #expect(r.pendingCount == 0)
    }

    @Test func keysAndHandlesAreIndependent() {
        var r = ACLReassembler<String>()
        let a = frame(40, fill: 1), b = frame(40, fill: 2), c = frame(40, fill: 3)
        #expect(r.receive(packet(1, .firstNonFlushable, Array(a[..<20])), key: "tx").frame == nil)
        #expect(r.receive(packet(1, .firstFlushable, Array(b[..<10])), key: "rx").frame == nil)
        #expect(r.receive(packet(2, .firstFlushable, Array(c[..<30])), key: "rx").frame == nil)
        #expect(r.pendingCount == 3)
        #expect(r.receive(packet(1, .continuing, Array(b[10...])), key: "rx").frame.map(Array.init) == b)
        #expect(r.receive(packet(2, .continuing, Array(c[30...])), key: "rx").frame.map(Array.init) == c)
        #expect(r.receive(packet(1, .continuing, Array(a[20...])), key: "tx").frame.map(Array.init) == a)
    }

    @Test func continuationWithoutStartIsDropped() {
        var r = ACLReassembler<Int>()
        let out = r.receive(packet(1, .continuing, [1, 2, 3]), key: 0)
        #expect(out.frame == nil)
        #expect(out.dropped == .unexpectedContinuation(length: 3))
    }

    @Test func newStartDisplacesUnfinishedFrame() {
        var r = ACLReassembler<Int>()
        let first = frame(100), second = frame(4)
        _ = r.receive(packet(1, .firstFlushable, Array(first[..<50])), key: 0)
        let out = r.receive(packet(1, .firstFlushable, second), key: 0)
        #expect(out.frame.map(Array.init) == second)
        #expect(out.dropped == .incompleteFrame(received: 50, expected: 104))
        #expect(r.pendingCount == 0)
    }

    @Test func oversizedDeclaredLengthIsDroppedWithoutBuffering() {
        var r = ACLReassembler<Int>(maximumFrameLength: 1000)
        let out = r.receive(packet(1, .firstFlushable, [0xFF, 0xFF, 0x04, 0x00, 1, 2]), key: 0)
        #expect(out.dropped == .frameTooLong(declared: 65535 + 4, limit: 1000))
        #expect(r.pendingCount == 0)
        // Its continuations are then unexpected, never appended anywhere.
        #expect(r.receive(packet(1, .continuing, [1, 2]), key: 0).dropped == .unexpectedContinuation(length: 2))
    }

    @Test func overrunIsDropped() {
        var r = ACLReassembler<Int>()
        let whole = frame(10)
        _ = r.receive(packet(1, .firstFlushable, Array(whole[..<8])), key: 0)
        let out = r.receive(packet(1, .continuing, Array(whole[8...]) + [0xEE]), key: 0)
        #expect(out.dropped == .overrun(expected: 14, received: 15))
        #expect(out.frame == nil)
        #expect(r.pendingCount == 0)
        #expect(r.receive(packet(1, .firstFlushable, whole + [1]), key: 0).dropped == .overrun(expected: 14, received: 15))
    }

    @Test func headerSplitAcrossFragmentsIsReported() {
        var r = ACLReassembler<Int>()
        #expect(r.receive(packet(1, .firstFlushable, [0x05]), key: 0).dropped == .headerSplit(available: 1))
    }

    @Test func pendingFramesAreBounded() {
        var r = ACLReassembler<Int>(maximumPendingFrames: 4)
        for handle in 0..<4 { _ = r.receive(packet(UInt16(handle), .firstFlushable, Array(frame(10)[..<5])), key: 0) }
        let out = r.receive(packet(9, .firstFlushable, Array(frame(10)[..<5])), key: 0)
        #expect(out.dropped == .tooManyPendingFrames(limit: 4))
        #expect(r.pendingCount == 4)
        #expect(r.reset(handle: 0, key: 0) == 1)
        #expect(r.pendingCount == 3)
    }
}
