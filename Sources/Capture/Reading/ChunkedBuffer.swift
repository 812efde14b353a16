/// A bounded window over a ``CaptureInput``: bytes are read in large chunks and
/// discarded once consumed, so a reader's memory does not grow with the file.
///
/// The input is an existential: it is called once per chunk, so dynamic dispatch costs
/// nothing measurable, and the reader above it need not be generic.
struct ChunkedBuffer {
    var input: any CaptureInput
    var storage: [UInt8]
    /// Unconsumed bytes are storage[start..<end].
    var start = 0
    var end = 0
    /// File offset of storage[0].
    var base: Int64 = 0
    var atEnd = false
    /// The buffer never grows beyond this many bytes.
    let limit: Int

    init(input: any CaptureInput, chunkSize: Int, limit: Int) {
        self.input = input
        self.storage = [UInt8](repeating: 0, count: chunkSize)
        self.limit = max(limit, chunkSize)
    }

    /// File offset of the next unconsumed byte.
    @inline(__always) var position: Int64 { base &+ Int64(start) }
    @inline(__always) var available: Int { end &- start }

    /// Makes `count` bytes available if the input has them and returns how many are
    /// (fewer only at the end of input). `count` must not exceed ``limit``.
    @inline(__always)
    mutating func fill(_ count: Int) throws(CaptureError) -> Int {
        if end &- start >= count { return count }
        return try refill(count)
    }

    @inline(never)
    mutating func refill(_ count: Int) throws(CaptureError) -> Int {
        if atEnd { return end &- start }
        if start > 0 {
            let live = end &- start
            let from = start
            storage.withUnsafeMutableBytes { raw in
                if live > 0 { raw.baseAddress!.copyMemory(from: raw.baseAddress! + from, byteCount: live) }
            }
            base &+= Int64(start)
            start = 0
            end = live
        }
        if storage.count < count {
            var bigger = [UInt8](repeating: 0, count: min(limit, max(count, storage.count &* 2)))
            let live = end
            bigger.withUnsafeMutableBytes { dst in
                storage.withUnsafeBytes { src in
                    if live > 0 { dst.baseAddress!.copyMemory(from: src.baseAddress!, byteCount: live) }
                }
            }
            storage = bigger
        }
        while end < count {
            // withUnsafeMutableBytes is untyped-rethrows, so carry the error out as a Result.
            let from = end
            let result = storage.withUnsafeMutableBytes { raw -> Result<Int, CaptureError> in
                do throws(CaptureError) {
                    return .success(try input.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[from...])))
                } catch {
                    return .failure(error)
                }
            }
            let got = try result.get()
            if got == 0 {
                atEnd = true
                break
            }
            end &+= got
        }
        return min(count, end)
    }

    @inline(__always)
    func byte(_ offset: Int) -> UInt8 { storage[start &+ offset] }

    @inline(__always)
    func uint16BE(_ offset: Int) -> UInt16 { UInt16(byte(offset)) &<< 8 | UInt16(byte(offset &+ 1)) }

    @inline(__always)
    func uint16LE(_ offset: Int) -> UInt16 { UInt16(byte(offset)) | UInt16(byte(offset &+ 1)) &<< 8 }

    @inline(__always)
    func uint32BE(_ offset: Int) -> UInt32 {
        UInt32(byte(offset)) &<< 24 | UInt32(byte(offset &+ 1)) &<< 16 | UInt32(byte(offset &+ 2)) &<< 8
            | UInt32(byte(offset &+ 3))
    }

    @inline(__always)
    func uint32LE(_ offset: Int) -> UInt32 { uint32BE(offset).byteSwapped }

    @inline(__always)
    func uint32(_ offset: Int, bigEndian: Bool) -> UInt32 { bigEndian ? uint32BE(offset) : uint32LE(offset) }

    @inline(__always)
    func uint16(_ offset: Int, bigEndian: Bool) -> UInt16 { bigEndian ? uint16BE(offset) : uint16LE(offset) }

    @inline(__always)
    func uint64BE(_ offset: Int) -> UInt64 { UInt64(uint32BE(offset)) &<< 32 | UInt64(uint32BE(offset &+ 4)) }

    /// Unconsumed bytes [offset, offset + count), sharing storage.
    @inline(__always)
    func slice(_ offset: Int, _ count: Int) -> ArraySlice<UInt8> {
        storage[(start &+ offset)..<(start &+ offset &+ count)]
    }

    @inline(__always)
    mutating func consume(_ count: Int) { start &+= count }
}
