import Capture
import CaptureTestSupport
import ControllerTestSupport
import Foundation
import HCI
import Testing

@Suite("attune demo --snoop")
struct SnoopTests {
    /// ATT_MTU 300: the 300-byte value needs Read Blob, the 512-byte write two prepares,
    /// and PDUs longer than 247 bytes are cut into several ACL packets.
    @Test(.timeLimit(.minutes(10)))
    func captureDecodesBackAndTsharkAgrees() async throws {
        let file = AttuneProcess.temporaryFile(".btsnoop")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let demo = try await AttuneProcess.run(["demo", "--seconds", "1", "--mtu", "300", "--json", "--snoop", file])
        #expect(demo.status == 0, "stderr: \(demo.stderr)")
        let result = try #require(demo.stdoutLines.last?.jsonObject)
        let notifications = try #require(result["notifications"] as? Int)
        let indications = try #require(result["indications"] as? Int)

        // Our decoder, through the CLI.
        let decode = try await AttuneProcess.run(["decode", "--json", file])
        #expect(decode.status == 0, "stderr: \(decode.stderr)")
        let pdus = decode.stdoutLines.compactMap { $0.jsonObject }
        #expect(pdus.count == decode.stdoutLines.count)
        let opcodes = pdus.compactMap { ($0["att"] as? [String: Any])?["opcode"] as? Int }
        #expect(opcodes.count == pdus.count)
        let summary = try await AttuneProcess.run(["decode", "--summary", "--json", file])
        let counts = try #require(summary.stdout.jsonObject)
        #expect(counts["att_pdus"] as? Int == pdus.count)
        #expect(counts["malformed_att"] as? Int == 0, "no PDU fails to decode")
        #expect(counts["acl_drops"] as? Int == 0 && counts["malformed_hci"] as? Int == 0)
        #expect(pdus.allSatisfy { $0["conn"] as? Int == 1 && $0["cid"] as? Int == 4 && $0["role"] as? String == "central" })
        // Every request the central sent and every value the peripheral pushed is there.
        #expect(opcodes.first == 0x02 && opcodes.dropFirst().first == 0x03, "Exchange MTU first")
        // The demo counts the values its consumers took before its deadline; the capture
        // records each as it crosses the link. A value in flight at the deadline (seen on a
        // loaded machine: one per characteristic) is captured, and confirmed, but not counted.
        let capturedNotifications = opcodes.filter { $0 == 0x1B }.count
        let capturedIndications = opcodes.filter { $0 == 0x1D }.count
        #expect((notifications...notifications + 3).contains(capturedNotifications), "\(capturedNotifications) vs \(notifications)")
        #expect((indications...indications + 1).contains(capturedIndications), "\(capturedIndications) vs \(indications)")
        #expect(opcodes.filter { $0 == 0x1E }.count == capturedIndications, "every indication confirmed")
        #expect(opcodes.filter { $0 == 0x0C }.count == 2, "one Read Blob completes the 300-byte read, one the 512-byte read-back")
        #expect(opcodes.filter { $0 == 0x16 }.count == 2, "two Prepare Writes carry 512 bytes at ATT_MTU 300")
        #expect(opcodes.filter { $0 == 0x18 }.count == 1)
        let sent = pdus.filter { $0["dir"] as? String == "sent" }.count
        #expect(sent > 0 && sent < pdus.count)

        // The synthesized HCI framing: connection events and fragmented ACL.
        var reader = try CaptureReader(path: file)
        #expect(reader.format == .btsnoop(.hciUART))
        var events: [UInt8] = [], acl = 0, continuing = 0
        while let record = try reader.next() {
            switch record.packetType {
            case .event?: events.append(record.payload.first ?? 0)
            case .aclData?:
                acl += 1
                let packet = try ACLDataPacket(decoding: record.payload)
                #expect(packet.data.count <= 251)
                if packet.boundary == .continuing { continuing += 1 }
            default: Issue.record("unexpected record \(record.kind)")
            }
        }
        #expect(events == [0x3E, 0x05], "LE Connection Complete first, Disconnection Complete last")
        #expect(continuing > 0, "PDUs longer than 247 bytes span several ACL packets")
        #expect(acl == opcodes.count + continuing)

        let text = try await AttuneProcess.run(["decode", file])
        #expect(text.stdout.contains("connected to C0:00:00:00:00:01 (random) as central"))
        #expect(text.stdout.contains("disconnected, reason"))

        // tshark, the independent decoder, sees the same ATT PDUs in the same order.
        try #require(TShark.path != nil, "tshark is not installed (.ci/run and Scripts/setup.sh install it)")
        let theirs = try await offPool { try TShark.attPDUs(file, bytes: false).map { Int($0.opcode) } }
        #expect(theirs == opcodes, "tshark's ATT opcodes equal ours, PDU for PDU")
    }
}
