/// The LE signaling channel (fixed channel 0x0005, Vol 3 Part A §4) of a host without
/// connection-oriented channels: it answers every request so the peer never waits on a
/// timeout, accepts connection parameter updates within limits, and refuses channels.
public enum LESignalingChannel {
    /// Signaling command codes (Vol 3 Part A §4, Table 4.2).
    public enum Code {
        public static let commandReject: UInt8 = 0x01
        public static let disconnectionRequest: UInt8 = 0x06
        public static let disconnectionResponse: UInt8 = 0x07
        public static let connectionParameterUpdateRequest: UInt8 = 0x12
        public static let connectionParameterUpdateResponse: UInt8 = 0x13
        public static let leCreditBasedConnectionRequest: UInt8 = 0x14
        public static let leCreditBasedConnectionResponse: UInt8 = 0x15
        public static let flowControlCreditIndication: UInt8 = 0x16
        public static let creditBasedConnectionRequest: UInt8 = 0x17
        public static let creditBasedConnectionResponse: UInt8 = 0x18
        public static let creditBasedReconfigureRequest: UInt8 = 0x19
        public static let creditBasedReconfigureResponse: UInt8 = 0x1A
    }

    /// Command Reject reasons (Vol 3 Part A §4.1).
    public enum RejectReason {
        public static let commandNotUnderstood: UInt16 = 0x0000
        public static let signalingMTUExceeded: UInt16 = 0x0001
        public static let invalidCIDInRequest: UInt16 = 0x0002
    }

    /// The minimum signaling MTU on LE, which is all this host supports (Vol 3 Part A §4).
    public static let signalingMTU = 23

    /// What one received signaling frame leads to.
    public struct Outcome: Hashable, Sendable {
        /// The signaling payload to send back on channel 0x0005, if any.
        public var reply: [UInt8]?
        /// What to tell the application, if anything.
        public var event: HostEvent?
        /// Parameters accepted from a Connection Parameter Update Request; as central the
        /// host applies them with LE Connection Update.
        public var acceptedParameters: ConnectionParameters?
    }

    /// Handles one signaling frame's payload received on `handle`, where we have `role`.
    public static func handle(_ payload: ArraySlice<UInt8>, handle: UInt16, role: ConnectionRole,
                              configuration: HostConfiguration) -> Outcome {
        var outcome = Outcome()
        let p = Array(payload)
        guard p.count >= 4 else { return outcome }  // no identifier to answer: nothing can be said
        let code = p[0], identifier = p[1]
        let length = Int(p[2]) | Int(p[3]) << 8
        // Identifier 0x00 is illegal in every command (Vol 3 Part A §4); drop it.
        guard identifier != 0 else { return outcome }
        if p.count > signalingMTU {
            outcome.reply = reject(identifier, RejectReason.signalingMTUExceeded, data: le16(UInt16(signalingMTU)))
            return outcome
        }
        guard p.count - 4 == length else {
            if isRequest(code) {
                outcome.reply = reject(identifier, RejectReason.commandNotUnderstood)
            }
            return outcome
        }
        let data = Array(p[4...])
        switch code {
        case Code.connectionParameterUpdateRequest:
            guard role == .central, data.count == 8 else {
                // Only a central may be asked (Vol 3 Part A §4.20).
                outcome.reply = reject(identifier, RejectReason.commandNotUnderstood)
                return outcome
            }
            let parameters = ConnectionParameters(
                intervalMin: u16(data, 0), intervalMax: u16(data, 2), maxLatency: u16(data, 4),
                supervisionTimeout: u16(data, 6))
            let accepted = acceptable(parameters, configuration)
            // Result 0x0000 accepted, 0x0001 rejected (Vol 3 Part A §4.21).
            outcome.reply = command(Code.connectionParameterUpdateResponse, identifier, le16(accepted ? 0 : 1))
            outcome.event = .connectionParameterUpdateRequested(handle: handle, parameters, accepted: accepted)
            if accepted { outcome.acceptedParameters = parameters }
        case Code.leCreditBasedConnectionRequest:
            guard data.count == 10 else {
                outcome.reply = reject(identifier, RejectReason.commandNotUnderstood)
                return outcome
            }
            // DCID, MTU, MPS, Initial Credits all zero; result 0x0002 SPSM not supported (§4.23).
            outcome.reply = command(Code.leCreditBasedConnectionResponse, identifier,
                                    [0, 0, 0, 0, 0, 0, 0, 0] + le16(0x0002))
            outcome.event = .creditBasedConnectionRefused(handle: handle, spsm: u16(data, 0))
        case Code.creditBasedConnectionRequest:
            guard data.count >= 10, data.count <= 18, data.count % 2 == 0 else {
                outcome.reply = reject(identifier, RejectReason.commandNotUnderstood)
                return outcome
            }
            let channels = (data.count - 8) / 2
            // MTU, MPS, Initial Credits zero; result 0x0002 all refused, SPSM not supported;
            // one zero DCID per requested channel (§4.26).
            outcome.reply = command(Code.creditBasedConnectionResponse, identifier,
                                    [0, 0, 0, 0, 0, 0] + le16(0x0002) + Array(repeating: 0, count: channels * 2))
            outcome.event = .creditBasedConnectionRefused(handle: handle, spsm: u16(data, 0))
        case Code.creditBasedReconfigureRequest:
            // No channel exists, so every destination CID is invalid: result 0x0003 (§4.28).
            outcome.reply = command(Code.creditBasedReconfigureResponse, identifier, le16(0x0003))
        case Code.disconnectionRequest:
            guard data.count == 4 else {
                outcome.reply = reject(identifier, RejectReason.commandNotUnderstood)
                return outcome
            }
            // No such channel: Invalid CID, echoing the request's destination and source CIDs.
            outcome.reply = reject(identifier, RejectReason.invalidCIDInRequest, data: Array(data[0..<4]))
        case Code.commandReject:
            outcome.event = .signalingCommandRejected(handle: handle, reason: data.count >= 2 ? u16(data, 0) : 0xFFFF)
        case Code.flowControlCreditIndication, Code.connectionParameterUpdateResponse,
             Code.leCreditBasedConnectionResponse, Code.creditBasedConnectionResponse,
             Code.creditBasedReconfigureResponse, Code.disconnectionResponse:
            // Responses and indications for nothing we asked: ignore (a reject would loop).
            break
        default:
            outcome.reply = reject(identifier, RejectReason.commandNotUnderstood)
        }
        return outcome
    }

    /// Spec limits (Vol 3 Part A §4.20; Vol 4 Part E §7.8.18) and the configured policy.
    static func acceptable(_ p: ConnectionParameters, _ configuration: HostConfiguration) -> Bool {
        guard p.intervalMin >= 0x0006, p.intervalMax <= 0x0C80, p.intervalMin <= p.intervalMax,
              p.maxLatency <= 0x01F3, (0x000A...0x0C80).contains(p.supervisionTimeout) else { return false }
        // The supervision timeout must exceed (1 + latency) × interval × 2:
        // timeout × 10 ms > (1 + latency) × intervalMax × 1.25 ms × 2.
        guard UInt32(p.supervisionTimeout) * 4 > (1 + UInt32(p.maxLatency)) * UInt32(p.intervalMax) else { return false }
        return configuration.acceptableIntervalRange.contains(p.intervalMin)
            && configuration.acceptableIntervalRange.contains(p.intervalMax)
            && p.maxLatency <= configuration.maximumAcceptableLatency
    }

    static func isRequest(_ code: UInt8) -> Bool {
        [Code.disconnectionRequest, Code.connectionParameterUpdateRequest, Code.leCreditBasedConnectionRequest,
         Code.creditBasedConnectionRequest, Code.creditBasedReconfigureRequest].contains(code)
            || ![Code.commandReject, Code.disconnectionResponse, Code.connectionParameterUpdateResponse,
                 Code.leCreditBasedConnectionResponse, Code.flowControlCreditIndication,
                 Code.creditBasedConnectionResponse, Code.creditBasedReconfigureResponse].contains(code)
    }

    static func command(_ code: UInt8, _ identifier: UInt8, _ data: [UInt8]) -> [UInt8] {
        [code, identifier] + le16(UInt16(data.count)) + data
    }

    static func reject(_ identifier: UInt8, _ reason: UInt16, data: [UInt8] = []) -> [UInt8] {
        command(Code.commandReject, identifier, le16(reason) + data)
    }

    static func le16(_ value: UInt16) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
    }

    static func u16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
        UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }
}
