// fuzz-modules: BluetoothCore ATT
// libFuzzer target: decode → encode → decode must be stable, and nothing may trap.
import ATT

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzATT(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let pdu = try? ATTPDU.decode(bytes[...]) else { return 0 }
    _ = pdu.description
    _ = pdu.json.description
    guard let wire = try? pdu.encoded() else { fatalError("decoded PDU failed to encode: \(pdu)") }
    guard wire == bytes else { fatalError("re-encoding differs: \(bytes) → \(wire)") }
    guard let again = try? ATTPDU.decode(wire[...]), again == pdu else { fatalError("second decode differs") }
    if (try? pdu.encoded(mtu: 23)) == nil, wire.count <= 23 { fatalError("MTU check wrong") }
    return 0
}
