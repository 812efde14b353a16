// fuzz-modules: BluetoothCore ATT HCI
// libFuzzer target for the HCI event and ACL decoders and the host that consumes them.
// The input is a sequence of chunks, each one length byte then that many bytes. Every chunk
// goes to the event and ACL decoders on their own, and as an H4 packet (indicator first)
// into a host that has finished initialisation and holds two connections (the first input
// byte chooses pairing off or on). Nothing may
// trap, and the host must never send an ACL packet larger than the controller's buffer.
import HCI

/// A host past initialisation (27-byte × 4 ACL buffers) with connections 0x0001 and 0x0002.
func readyHost(_ now: MonotonicTime, pairing: Bool) -> HCIHost {
    var host = HCIHost(configuration: HostConfiguration(randomAddress: BluetoothAddress(0xC0, 1, 2, 3, 4, 5),
                                                        pairingEnabled: pairing))
    var out = HostOutput()
    host.start(at: now, into: &out)
    for _ in 0..<16 {
        guard let first = out.packets.first, case let packet = Array(out.bytes(of: first)), packet.count >= 3 else { break }
        out.removeAll()
        let opcode = UInt16(packet[1]) | UInt16(packet[2]) << 8
        let parameters: [UInt8]
        switch opcode {
        case 0x1002: parameters = [0] + Array(repeating: 0, count: 64)
        case 0x1003, 0x2003: parameters = [0] + Array(repeating: 0, count: 8)
        case 0x2002: parameters = [0, 27, 0, 4]
        case 0x1009: parameters = [0, 6, 5, 4, 3, 2, 1]
        default: parameters = [0]
        }
        host.receive([0x04, 0x0E, UInt8(3 + parameters.count), 1, UInt8(opcode & 0xFF), UInt8(opcode >> 8)]
                     + parameters, at: now, into: &out)
    }
    for handle: UInt8 in [1, 2] {
        let body: [UInt8] = [0x01, 0x00, handle, 0x00, 0x00, 0x01, 1, 2, 3, 4, 5, 0xF0, 0x18, 0, 0, 0, 0xF4, 1, 0]
        host.receive([0x04, 0x3E, UInt8(body.count)] + body, at: now, into: &out)
    }
    return host
}

/// Built once: the host is a value, so every input starts from a copy of the same state.
let start = MonotonicTime.seconds(1000)
/// The input's first byte picks the host: with pairing on, SMP PDUs, LTK requests and
/// encryption events take the host's own paths instead of the built-in refusal.
let templates = [readyHost(start, pairing: false), readyHost(start, pairing: true)]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHCI(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let now = start
    guard let selector = bytes.first else { return 0 }
    var host = templates[Int(selector & 1)]
    var out = HostOutput()
    var index = 1
    while index < bytes.count {
        let length = Int(bytes[index])
        let chunk = Array(bytes[(index + 1)..<min(bytes.count, index + 1 + length)])
        index += 1 + length
        if let event = try? HCIEvent(decoding: chunk[...]) { _ = "\(event)" }
        if let packet = try? ACLDataPacket(decoding: chunk[...]) {
            _ = try? L2CAPBasicFrame(decoding: packet.data)
        }
        _ = LESignalingChannel.handle(chunk[...], handle: 1, role: .central, configuration: host.configuration)
        _ = SecurityManagerRefusal.answer(to: chunk[...])
        out.removeAll()
        host.receive(chunk, at: now, into: &out)
        host.tick(at: now + .seconds(1), into: &out)
        for packet in out.packets where out.buffer[packet.lowerBound] == 0x02 && packet.count - 5 > 27 {
            fatalError("ACL packet of \(packet.count - 5) bytes exceeds the 27-byte buffer")
        }
    }
    return 0
}
