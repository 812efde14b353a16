import ATT

extension ServerTestCatalog {
    /// GATT/SR/GAC/BV-01-C: judged on the tester's own Exchange MTU, the one a link allows.
    static let exchangeMTU = ServerTestCase(
        "GATT/SR/GAC/BV-01-C", "Server: Exchange MTU", precondition: "none",
        spec: "Vol 3 Part F §3.4.2.1–§3.4.2.2; Part G §4.3.1", judgesMTUExchange: true) { _, t in
        guard let answer = t.lastReceived else { return .finish(.inconclusive("the tester's Exchange MTU Request got no answer")) }
        switch PDUCoding.decode(answer) {
        case .failure(let e):
            return .finish(.fail("malformed answer to Exchange MTU \(hexString(answer)): \(e)"))
        case .success(.exchangeMTUResponse(let r)):
            guard r.serverRxMTU >= 23 else {
                return .finish(.fail("Server Rx MTU \(r.serverRxMTU) is below the default ATT_MTU 23 (Vol 3 Part F §3.4.2.2)"))
            }
            return .finish(.pass(note: "Server Rx MTU \(r.serverRxMTU)"))
        case .success(.errorResponse(let e)) where e.errorCode == .requestNotSupported:
            guard e.requestOpcode == .exchangeMTURequest, e.handle == .reserved else {
                return .finish(.fail("Request Not Supported must name Exchange MTU and handle 0x0000 (Vol 3 Part F §3.4.1.1)"))
            }
            return .finish(.notApplicable("the IUT declines Exchange MTU with Request Not Supported; ATT_MTU stays 23"))
        case .success(let other):
            return .finish(.fail("expected Exchange MTU Response, got \(other.opcode.name) (Vol 3 Part F §3.4.2.2)"))
        }
    }
}
