import ATT

/// A server PDU that is well-formed ATT but breaks a GATT procedure's rules, such as a
/// discovery response whose handles do not increase. Names the PDU so that the log says
/// exactly what the server sent.
public struct ProtocolViolation: Hashable, Sendable, CustomStringConvertible {
    public enum Reason: Hashable, Sendable {
        /// A handle that is not above the previous one, or not above where the request started.
        case nonIncreasingHandle(AttributeHandle, previous: AttributeHandle)
        /// A handle outside the requested range.
        case handleOutOfRange(AttributeHandle, AttributeHandleRange)
        /// A group that overlaps one reported before.
        case overlappingRange(AttributeHandleRange, previous: AttributeHandleRange)
        /// An entry of a length the procedure cannot use (such as a characteristic
        /// declaration that is neither 7 nor 21 bytes).
        case invalidEntryLength(Int)
        /// A response opcode that does not answer the outstanding request.
        case unexpectedResponse(expected: ATTOpcode)
        /// A response that arrived with no request outstanding.
        case unsolicitedResponse
        /// A request of the peer while its previous request was still unanswered
        /// (Vol 3 Part F §3.3.2).
        case requestWhileRequestPending
        /// A Handle Value Confirmation with no indication of ours outstanding.
        case unsolicitedConfirmation
        /// A Handle Value Indication before the previous one was confirmed (Vol 3 Part F
        /// §3.4.7.2): an indication flood.
        case indicationBeforeConfirmation
        /// A PDU longer than the ATT_MTU in force.
        case exceedsATTMTU(length: Int, mtu: Int)
        /// A value that would exceed the 512-byte maximum of an attribute value.
        case valueTooLong(Int)
        /// A reliable write's echoed Prepare Write Response differs from the request.
        case preparedWriteMismatch(handle: AttributeHandle, offset: UInt16)
        /// A value of the wrong size for its type (such as a 128-bit included-service UUID).
        case invalidValueLength(Int, expected: Int)
        /// A whole-database discovery still running at
        /// ``GATTClientConfiguration/discoveryTimeout``, after `pdus` responses. The
        /// opcode is that of the request outstanding then; no PDU is named.
        case discoveryTimedOut(pdus: Int)
    }

    public var reason: Reason
    /// The opcode of the offending PDU.
    public var opcode: ATTOpcode
    /// The offending PDU, complete.
    public var pdu: [UInt8]

    public init(_ reason: Reason, opcode: ATTOpcode, pdu: [UInt8]) {
        self.reason = reason
        self.opcode = opcode
        self.pdu = pdu
    }

    public var description: String {
        let what: String
        switch reason {
        case let .nonIncreasingHandle(h, previous): what = "handle \(h) does not increase past \(previous)"
        case let .handleOutOfRange(h, range): what = "handle \(h) is outside the requested range \(range)"
        case let .overlappingRange(r, previous): what = "range \(r) overlaps \(previous)"
        case let .invalidEntryLength(n): what = "entry length \(n) is not valid here"
        case let .unexpectedResponse(expected): what = "a response that does not answer the outstanding request (expected \(expected.name))"
        case .unsolicitedResponse: what = "a response with no request outstanding"
        case .requestWhileRequestPending: what = "a request while the previous one was still unanswered"
        case .unsolicitedConfirmation: what = "a confirmation with no indication outstanding"
        case .indicationBeforeConfirmation: what = "an indication flood: an indication before the previous one was confirmed"
        case let .exceedsATTMTU(length, mtu): what = "PDU of \(length) bytes exceeds ATT_MTU \(mtu)"
        case let .valueTooLong(n): what = "value of \(n) bytes exceeds the 512-byte maximum"
        case let .preparedWriteMismatch(h, offset): what = "echoed prepared write for \(h) offset \(offset) differs from the request"
        case let .invalidValueLength(n, expected): what = "value of \(n) bytes, expected \(expected)"
        case let .discoveryTimedOut(pdus): return "discovery timed out after \(pdus) responses, awaiting \(opcode.name)"
        }
        return "\(what) in \(opcode.name) \(hexString(pdu))"
    }
}
