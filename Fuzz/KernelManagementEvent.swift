// fuzz-modules: CBlueZ CCrypto BluetoothCore BluetoothCrypto ATT HCI GATT SMP Capture Transport
// libFuzzer target: arbitrary bytes as one read of the kernel's management channel, as
// `KernelPairingAgent` decodes them (pairing requests and the keys the kernel hands out).
// Nothing may trap, and an event is reported only from a packet whose declared length fits
// it, with the code and adapter index its bytes carry.
import Transport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKernelManagementEvent(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let packet = Array(UnsafeBufferPointer(start: data, count: size))
    guard let event = KernelManagementEvent(decoding: packet) else { return 0 }
    precondition(packet.count >= 6, "an event from less than a header")
    let code = UInt16(packet[0]) | UInt16(packet[1]) << 8
    let index = UInt16(packet[2]) | UInt16(packet[3]) << 8
    let length = Int(UInt16(packet[4]) | UInt16(packet[5]) << 8)
    precondition(packet.count - 6 >= length, "an event from a packet shorter than its declared length")
    switch event {
    case .pairingRequest(let request):
        precondition(request.peer.adapterIndex == index, "the index is not the packet's")
        switch request.kind {
        case .justWorks, .numericComparison: precondition(code == 0x000F && length >= 12)
        case .passkeyEntry: precondition(code == 0x0010 && length >= 7)
        case .passkeyDisplay: precondition(code == 0x0017 && length >= 12)
        }
    case .key(let key):
        precondition(key.peer.adapterIndex == index, "the index is not the packet's")
        switch key {
        case .longTermKey(let ltk):
            precondition(code == 0x000A && length >= 37 && ltk.value.bytes.count == 16)
        case .identityResolvingKey(let irk):
            precondition(code == 0x0018 && length >= 30 && irk.value.bytes.count == 16)
        case .signatureKey(let csrk):
            precondition(code == 0x0019 && length >= 25 && csrk.value.bytes.count == 16)
        }
        precondition("\(key)".contains("<redacted>"), "a key's value shows in its description")
    }
    return 0
}
