import Transport

/// The smallest ATT peripheral that lets the probe exercise the socket:
/// it answers Exchange MTU and Read requests and rejects everything else.
/// The real GATT server lives in the GATT module; this only proves the pipe.
enum ProbeResponder {
    static let serverMTU: UInt16 = 517

    /// The answer to one request, or nil for PDUs that need none.
    static func response(to pdu: [UInt8]) -> [UInt8]? {
        guard let opcode = pdu.first else { return nil }
        switch opcode {
        case 0x02:  // Exchange MTU Request
            return [0x03, UInt8(serverMTU & 0xFF), UInt8(serverMTU >> 8)]
        case 0x0A where pdu.count == 3:  // Read Request: echo the handle as the value
            return [0x0B, pdu[1], pdu[2], 0x42]
        default:
            // Commands (bit 6) and confirmations get no response.
            if opcode & 0x40 != 0 || opcode == 0x1E { return nil }
            let handle: [UInt8] = pdu.count >= 3 ? [pdu[1], pdu[2]] : [0, 0]
            return [0x01, opcode] + handle + [0x06]  // Request Not Supported
        }
    }

    /// Answers until the link or the socket ends.
    static func serve(_ socket: L2CAPATTSocket) async {
        do {
            for try await pdu in socket.datagrams {
                if let answer = response(to: pdu) { try await socket.send(answer) }
            }
        } catch {
            // The central went away; nothing to do.
        }
    }
}
