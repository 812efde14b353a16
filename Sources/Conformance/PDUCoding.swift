import ATT
import BluetoothCore

/// The ATT codec as the tester uses it: requests built from typed PDUs, answers decoded
/// strictly (a PDU our decoder rejects is malformed, which is itself a verdict).
enum PDUCoding {
    static func bytes(_ pdu: ATTPDU) -> [UInt8] {
        // Every PDU the tester builds fits any ATT_MTU it uses; an empty array would be
        // a bug in a test, and the IUT would answer it as an invalid PDU.
        (try? pdu.encoded()) ?? []
    }

    static func decode(_ bytes: [UInt8]) -> Result<ATTPDU, ATTDecodingError> {
        do { return .success(try ATTPDU.decode(bytes)) } catch { return .failure(error) }
    }

    static func decoded(_ bytes: [UInt8]) -> ATTPDU? { try? ATTPDU.decode(bytes) }

    /// The ATT name of the PDU's opcode, for reasons: "Read Response (0x0b)".
    static func name(_ bytes: [UInt8]) -> String {
        guard let first = bytes.first else { return "an empty PDU" }
        let opcode = ATTOpcode(first)
        return "\(opcode.name) (0x\(hexString(first, digits: 2)))"
    }
}
