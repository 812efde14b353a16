import ATT
import GATT

/// Our GATT server engine as the IUT of a conformance run, in memory: ATT PDUs in, the
/// PDUs it answers out. Its application notifies or indicates a characteristic as soon
/// as a client enables that in the CCCD, as a device under test would when told to.
/// With a ``ServerFault`` it breaks that one rule, by rewriting what goes in or out.
public struct ServerUnderTest: Sendable {
    public private(set) var server: GATTServer
    public let fault: ServerFault?
    let connection: ConnectionID = 1

    /// The Error Responses a fault rewrites: by error code, to a whole PDU of one opcode
    /// (nil: the same Error Response with another code).
    static let rewrittenError: [ServerFault: (ATTErrorCode, UInt8?)] = [
        .acceptsOverlongValues: (.invalidAttributeValueLength, ATTOpcode.executeWriteResponse.rawValue),
        .prepareQueueFullMisnamed: (.prepareQueueFull, nil),
        .invalidPDUMisnamed: (.invalidPDU, nil),
    ]

    public init(database: AttributeDatabase, fault: ServerFault? = nil) {
        server = GATTServer(database: database)
        self.fault = fault
        server.connect(connection)
    }

    /// One PDU from the tester; returns every PDU the server sends back, in order.
    public mutating func receive(_ pdu: [UInt8], at now: MonotonicTime) -> [[UInt8]] {
        var request = pdu
        switch fault {
        case .readBlobIgnoresOffset? where request.first == ATTOpcode.readBlobRequest.rawValue && request.count == 5:
            request[3] = 0
            request[4] = 0
        case .characteristicDiscoveryIgnoresRangeEnd? where request.count == 7 && request[0] == ATTOpcode.readByTypeRequest.rawValue
                && request[5] == 0x03 && request[6] == 0x28:
            request[3] = 0xFF
            request[4] = 0xFF
        case .answersUnknownCommands? where request.first.map({ $0 & 0x40 != 0 && ATTOpcode($0).name.hasPrefix("Unknown") }) ?? false:
            return [[ATTOpcode.errorResponse.rawValue, request[0], 0x00, 0x00, ATTErrorCode.requestNotSupported.rawValue]]
        default:
            break
        }
        var out = GATTServerOutput()
        server.receive(request[...], from: connection, at: now, into: &out)
        var answers = out.pdus.map { Array(out.bytes(of: $0)) }
        for event in out.events {
            guard case .subscriptionChanged(_, let handle, let configuration) = event else { continue }
            var pushed = GATTServerOutput()
            if configuration.contains(.indication) {
                _ = try? server.indicate([0x01], characteristic: handle, at: now, into: &pushed)
            } else if configuration.contains(.notification) {
                _ = try? server.notify([0x01], characteristic: handle, into: &pushed)
            }
            answers += pushed.pdus.map { Array(pushed.bytes(of: $0)) }
        }
        if let fault, let (code, becomes) = Self.rewrittenError[fault] {
            for i in answers.indices where answers[i].count == 5 && answers[i][0] == ATTOpcode.errorResponse.rawValue
                && answers[i][4] == code.rawValue {
                answers[i] = becomes.map { [$0] } ?? [answers[i][0], answers[i][1], answers[i][2], answers[i][3],
                                                      ATTErrorCode.insufficientResources.rawValue]
                if fault == .invalidPDUMisnamed { answers[i][4] = ATTErrorCode.invalidHandle.rawValue }
            }
        }
        if fault == .errorNamesWrongHandle || fault == .notFoundNamesWrongHandle {
            let named: Set<ATTErrorCode> = fault == .notFoundNamesWrongHandle ? [.attributeNotFound]
                : [.invalidHandle, .readNotPermitted, .writeNotPermitted, .invalidOffset]
            for i in answers.indices where answers[i].count == 5 && answers[i][0] == ATTOpcode.errorResponse.rawValue
                && named.contains(ATTErrorCode(answers[i][4])) {
                let wrong = (UInt16(answers[i][2]) | UInt16(answers[i][3]) << 8) &+ 1
                answers[i][2] = UInt8(truncatingIfNeeded: wrong)
                answers[i][3] = UInt8(truncatingIfNeeded: wrong >> 8)
            }
        }
        return answers
    }
}
