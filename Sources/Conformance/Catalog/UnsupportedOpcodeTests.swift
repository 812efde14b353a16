import ATT
import BluetoothCore

extension ServerTestCatalog {
    static var unsupportedTests: [ServerTestCase] { [unsupportedRequest, unsupportedCommand] }

    /// An opcode no ATT version assigns, with the command flag (bit 6) clear: a request.
    static let unknownRequestOpcode: UInt8 = 0x3F
    /// An opcode no ATT version assigns, with the command flag set: a command.
    static let unknownCommandOpcode: UInt8 = 0x7F

    static let unsupportedRequest = ServerTestCase(
        "GATT/SR/UNS/BI-01-C", "Unsupported Request", precondition: "none",
        spec: "Vol 3 Part F §3.4.1.1, §3.3") { _, t in
        guard let answer = t.lastReceived else { return .request([unknownRequestOpcode]) }
        return .finish(Judge.error(answer, request: ATTOpcode(unknownRequestOpcode), handle: .reserved, code: .requestNotSupported,
                                   spec: "Vol 3 Part F §3.4.1.1: an unsupported request is answered Request Not Supported "
                                   + "with handle 0x0000"))
    }

    static let unsupportedCommand = ServerTestCase(
        "GATT/SR/UNS/BI-02-C", "Unsupported Command", precondition: "none",
        spec: "Vol 3 Part F §3.3") { p, t in
        guard t.sentCount > 0 else { return .command([unknownCommandOpcode]) }
        // A request after the command: the next PDU must be its answer, since a server
        // ignores a command it does not support.
        let probe = p.readable.first?.valueHandle ?? p.invalidHandle ?? .min
        guard let answer = t.received.first else { return .request(PDUCoding.bytes(.readRequest(ReadRequest(handle: probe)))) }
        // A wrong answer to the command comes first; the request's answer is still owed,
        // and waiting for it keeps it from landing in the next test.
        if t.received.count == 1, case .errorResponse(let e)? = PDUCoding.decoded(answer), e.requestOpcode != .readRequest {
            return .awaitResponse
        }
        switch PDUCoding.decoded(answer) {
        case .readResponse?:
            return .finish(.pass(note: nil))
        case .errorResponse(let e)? where e.requestOpcode == .readRequest:
            return .finish(.pass(note: nil))
        default:
            return .finish(.fail("the IUT answered the unknown command 0x\(hexString(unknownCommandOpcode, digits: 2)) with "
                                 + "\(PDUCoding.name(answer)); a server ignores commands it does not support (Vol 3 Part F §3.3)"))
        }
    }
}
