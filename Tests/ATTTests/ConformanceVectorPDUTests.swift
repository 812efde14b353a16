import FixtureTestSupport
import Foundation
import Testing
@testable import ATT
import HexTestSupport

/// Every PDU in the conformance vectors decodes and re-encodes byte-identically. A PDU
/// flagged `exceeds_att_mtu` (the held-back /512B vectors) must refuse to encode at its MTU.
@Suite struct ConformanceVectorPDUTests {
    struct VectorPDU: Sendable {
        let test: String
        let hex: String
        let mtu: Int?
        let exceedsMTU: Bool
    }

    static func load() throws -> [VectorPDU] {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.vectors))
        let root = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        var out: [VectorPDU] = []
        for test in root["tests"] as! [[String: Any]] {
            let id = test["id"] as! String
            let mtu = test["effective_att_mtu"] as? Int
            for entry in test["exchange"] as! [[String: Any]] {
                out.append(VectorPDU(test: id, hex: entry["pdu"] as! String, mtu: mtu, exceedsMTU: entry["exceeds_att_mtu"] as? Bool ?? false))
            }
        }
        return out
    }

    @Test func everyVectorPDURoundTrips() throws {
        let pdus = try Self.load()
        #expect(pdus.count > 600)
        for v in pdus {
            let raw = bytes(v.hex)
            if raw.first == 0xBF {
                // /robustness/unkown-request: an opcode the spec does not define.
                #expect(throws: ATTDecodingError(.unknownOpcode, offset: 0, opcode: 0xBF)) { try ATTPDU.decode(raw) }
                continue
            }
            let pdu: ATTPDU
            do { pdu = try ATTPDU.decode(raw) } catch {
                Issue.record("\(v.test) \(v.hex): \(error)")
                continue
            }
            #expect(try pdu.encoded() == raw, "\(v.test)")
            if v.exceedsMTU, let mtu = v.mtu {
                #expect(throws: ATTEncodingError.exceedsMTU(length: raw.count, mtu: mtu)) { try pdu.encoded(mtu: mtu) }
            }
        }
    }

    /// The shape of the /512B vectors: a 513-byte Read Response at ATT_MTU 512.
    @Test func readResponseOverTheMTURefusesToEncode() throws {
        let response = ATTPDU.readResponse(ReadResponse(value: [UInt8](repeating: 0xFF, count: 512)))
        #expect(throws: ATTEncodingError.exceedsMTU(length: 513, mtu: 512)) { try response.encoded(mtu: 512) }
        #expect(try response.encoded().count == 513)
    }
}
