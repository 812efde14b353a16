// fuzz-modules: BluetoothCore ATT ATTPresentation
// libFuzzer target: decode → encode → decode must be stable, and nothing may trap.
import ATT
import ATTPresentation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzATT(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // The one decode of the receive path sorts by the role the opcode's kind names,
    // whether or not the parameters decode.
    let received = ATTReceivedPDU(decoding: bytes[...])
    if let first = bytes.first, !roleAgrees(received, ATTOpcode(first).kind) {
        fatalError("the received decode's role disagrees with the opcode's kind: \(bytes)")
    }
    // The direction-typed decoders accept exactly the PDUs of their side, never trap.
    let client = try? ATTClientPDU.decode(bytes[...])
    let server = try? ATTServerPDU.decode(bytes[...])
    guard let pdu = try? ATTPDU.decode(bytes[...]) else {
        if client != nil || server != nil { fatalError("a direction decoder took what ATTPDU refuses: \(bytes)") }
        return 0
    }
    if (client == nil) == (server == nil) { fatalError("a PDU must belong to exactly one direction: \(pdu)") }
    _ = pdu.description
    _ = pdu.json.description
    guard let wire = try? pdu.encoded() else { fatalError("decoded PDU failed to encode: \(pdu)") }
    guard wire == bytes else { fatalError("re-encoding differs: \(bytes) → \(wire)") }
    guard let again = try? ATTPDU.decode(wire[...]), again == pdu else { fatalError("second decode differs") }
    if (try? pdu.encoded(mtu: 23)) == nil, wire.count <= 23 { fatalError("MTU check wrong") }
    return 0
}

func roleAgrees(_ received: ATTReceivedPDU, _ kind: ATTOpcode.Kind) -> Bool {
    switch (received, kind) {
    case (.request, .request), (.command, .command), (.confirmation, .confirmation), (.response, .response),
         (.notification, .notification), (.multipleNotification, .notification), (.indication, .indication),
         (.unknown, .unknown): true
    default: false
    }
}
