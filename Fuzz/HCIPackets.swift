// fuzz-modules: BluetoothCore ATT HCI
// libFuzzer target for HCI packet decoding (Sources/HCI/Packets): the first byte picks a decoder (H4 packet type, or
// advertising data, or ACL reassembly over a packet sequence); decoders must return a
// value or a typed error with an offset inside the input, never trap; encodings must
// re-decode to the same value.
import ATT
import HCI

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHCIPackets(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let all = Array(UnsafeBufferPointer(start: data, count: size))
    let selector = all[0]
    let bytes = all[1...]
    func checkOffset(_ e: HCIDecodingError) {
        guard e.offset >= 0, e.offset <= bytes.count else { fatalError("offset \(e.offset) outside \(bytes.count) bytes: \(e)") }
        _ = e.description
    }
    switch selector % 5 {
    case 0:
        do {
            let c = try HCICommandPacket(decoding: bytes)
            guard c.encoded[...] == bytes else { fatalError("command re-encoding differs") }
        } catch { checkOffset(error) }
    case 1:
        do {
            let p = try ACLDataPacket(decoding: bytes)
            guard p.encoded[...] == bytes else { fatalError("ACL re-encoding differs") }
            if let f = try? L2CAPBasicFrame(decoding: p.data), f.encoded[...] != p.data { fatalError("L2CAP re-encoding differs") }
        } catch { checkOffset(error) }
    case 2:
        do {
            switch try HCIEvent(decoding: bytes) {
            case let .leAdvertisingReport(reports):
                for r in reports { for s in AdvertisingData(decoding: r.data).structures { _ = s.value } }
            case let .leExtendedAdvertisingReport(reports):
                for r in reports { for s in AdvertisingData(decoding: r.data).structures { _ = s.value } }
            default: break
            }
        } catch { checkOffset(error) }
    case 3:
        let ad = AdvertisingData(decoding: bytes)
        for s in ad.structures {
            guard s.offset >= 0, s.offset < bytes.count else { fatalError("structure offset outside input") }
            if case let .failure(e) = s.value { checkOffset(e) }
        }
        if let e = ad.framingError { checkOffset(e) }
        _ = ad.localName
        _ = ad.serviceUUIDs
    default:
        // A sequence of ACL packets, each prefixed by a length byte, reassembled on two keys.
        var reassembler = ACLReassembler<UInt8>(maximumFrameLength: 512, maximumPendingFrames: 4)
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let n = Int(bytes[i])
            let end = min(bytes.endIndex, i + 1 + n)
            if let p = try? ACLDataPacket(decoding: bytes[(i + 1)..<end]) {
                let out = reassembler.receive(p, key: UInt8(n & 1))
                if let f = out.frame, f.count > 512 { fatalError("frame beyond the limit") }
                guard reassembler.pendingCount <= 4 else { fatalError("pending frames beyond the limit") }
            }
            i = end
        }
    }
    return 0
}
