import ATT
import BluetoothCore

/// Checks of single answers, written from Core 5.4 Vol 3 Part F. Each returns a verdict,
/// or the decoded value when the answer is good and the test goes on.
enum Judge {
    /// The codes that mean the link's security, not the request, stopped the IUT.
    static let securityCodes: Set<ATTErrorCode> = [.insufficientAuthentication, .insufficientEncryption,
                                                   .encryptionKeySizeTooShort, .insufficientAuthorization]

    /// An Error Response naming `request`, `handle` and `code` (Vol 3 Part F §3.4.1.1).
    static func error(_ bytes: [UInt8], request: ATTOpcode, handle: AttributeHandle, code: ATTErrorCode,
                      spec: String) -> ConformanceTestVerdict {
        switch PDUCoding.decode(bytes) {
        case .failure(let e):
            return .fail("malformed answer \(hexString(bytes)): \(e)")
        case .success(.errorResponse(let r)):
            if r.requestOpcode != request {
                return .fail("Error Response names request opcode \(r.requestOpcode.name), not \(request.name) (Vol 3 Part F §3.4.1.1)")
            }
            if r.errorCode != code {
                if let other = declined(r, expected: code) { return other }
                return .fail("Error Response code \(r.errorCode) (0x\(hexString(r.errorCode.rawValue, digits: 2))), "
                             + "expected \(code) (\(spec))")
            }
            if r.handle != handle {
                return .fail("Error Response names handle \(r.handle), expected \(handle) (Vol 3 Part F §3.4.1.1, \(spec))")
            }
            return .pass(note: nil)
        case .success(let other):
            return .fail("expected Error Response \(code) naming \(handle), got \(other.opcode.name) (\(spec))")
        }
    }

    /// A refusal that is not the rule's failure: security the tester has not set up, or
    /// an optional request the IUT does not support.
    static func declined(_ r: ErrorResponse, expected: ATTErrorCode? = nil) -> ConformanceTestVerdict? {
        if securityCodes.contains(r.errorCode), expected.map({ !securityCodes.contains($0) }) ?? true {
            return .inconclusive("the IUT answered \(r.errorCode) on handle \(r.handle): the attribute needs security "
                                 + "this run does not set up (pairing is not run yet)")
        }
        if r.errorCode == .requestNotSupported {
            return .notApplicable("the IUT declines \(r.requestOpcode.name) with Request Not Supported")
        }
        return nil
    }

    /// The value of a Read Response no longer than ATT_MTU − 1 (Vol 3 Part F §3.4.4.4).
    static func readValue(_ bytes: [UInt8], mtu: Int) -> Judged<[UInt8]> {
        switch PDUCoding.decode(bytes) {
        case .failure(let e): return .verdict(.fail("malformed answer \(hexString(bytes)): \(e)"))
        case .success(.readResponse(let r)):
            guard r.value.count <= mtu - 1 else {
                return .verdict(.fail("Read Response carries \(r.value.count) octets, more than ATT_MTU − 1 = \(mtu - 1) "
                                      + "(Vol 3 Part F §3.4.4.4)"))
            }
            return .ok(Array(r.value))
        case .success(.errorResponse(let r)):
            return .verdict(declined(r) ?? .fail("Read Request refused with \(r.errorCode) on \(r.handle)"))
        case .success(let other):
            return .verdict(.fail("expected Read Response, got \(other.opcode.name) (Vol 3 Part F §3.4.4.4)"))
        }
    }

    /// The part of a Read Blob Response no longer than ATT_MTU − 1 (Vol 3 Part F §3.4.4.6).
    static func blobPart(_ bytes: [UInt8], mtu: Int) -> Judged<[UInt8]> {
        switch PDUCoding.decode(bytes) {
        case .failure(let e): return .verdict(.fail("malformed answer \(hexString(bytes)): \(e)"))
        case .success(.readBlobResponse(let r)):
            guard r.value.count <= mtu - 1 else {
                return .verdict(.fail("Read Blob Response carries \(r.value.count) octets, more than ATT_MTU − 1 = \(mtu - 1) "
                                      + "(Vol 3 Part F §3.4.4.6)"))
            }
            return .ok(Array(r.value))
        case .success(.errorResponse(let r)):
            return .verdict(declined(r) ?? .fail("Read Blob Request refused with \(r.errorCode) on \(r.handle)"))
        case .success(let other):
            return .verdict(.fail("expected Read Blob Response, got \(other.opcode.name) (Vol 3 Part F §3.4.4.6)"))
        }
    }

    /// A response of exactly `opcode` with no parameters beyond those the codec
    /// accepts: Write Response, Execute Write Response.
    static func response(_ bytes: [UInt8], is opcode: ATTOpcode, spec: String) -> ConformanceTestVerdict {
        switch PDUCoding.decode(bytes) {
        case .failure(let e): return .fail("malformed answer \(hexString(bytes)): \(e)")
        case .success(let pdu) where pdu.opcode == opcode: return .pass(note: nil)
        case .success(.errorResponse(let r)):
            return declined(r) ?? .fail("expected \(opcode.name), got Error Response \(r.errorCode) on \(r.handle) (\(spec))")
        case .success(let other): return .fail("expected \(opcode.name), got \(other.opcode.name) (\(spec))")
        }
    }

    /// The handle range of a request the tester sent (the two handles after the opcode).
    static func requestRange(_ bytes: [UInt8]) -> AttributeHandleRange? {
        guard bytes.count >= 5 else { return nil }
        return AttributeHandleRange(start: AttributeHandle(UInt16(bytes[1]) | UInt16(bytes[2]) << 8),
                                    end: AttributeHandle(UInt16(bytes[3]) | UInt16(bytes[4]) << 8))
    }
}
