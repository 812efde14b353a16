// fuzz-modules: CBlueZ CCrypto BluetoothCore BluetoothCrypto ATT HCI GATT SMP Capture Transport
// libFuzzer target: arbitrary bytes as a packet from the kernel's raw HCI socket, as
// `KernelAdapterMonitor` decodes them (the stack-internal Device event). Nothing may trap,
// and an event is reported only for a well-framed Device event, with the kind and
// adapter index its bytes carry.
import Transport

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKernelAdapterMonitor(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let packet = Array(UnsafeBufferPointer(start: data, count: size))
    guard let event = KernelAdapterMonitor.decode(packet) else { return 0 }
    precondition(packet.count >= 9 && packet[0] == 0x04 && packet[1] == 0xFD && Int(packet[2]) == packet.count - 3,
                 "an event from a packet that is not a whole stack-internal event")
    precondition(packet[3] == 0x01 && packet[4] == 0x00, "an event from another sub-event")
    precondition(event.kind.rawValue == UInt16(packet[5]) | UInt16(packet[6]) << 8, "the kind is not the packet's")
    precondition(event.adapterIndex == UInt16(packet[7]) | UInt16(packet[8]) << 8, "the index is not the packet's")
    return 0
}
