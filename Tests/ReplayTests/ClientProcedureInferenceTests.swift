import ATT
import Capture
import FixtureTestSupport
import Replay
import Testing

/// The captured clients' requests group into GATT procedures.
@Suite struct ClientProcedureInferenceTests {
    func clientConversations(_ name: String) throws -> [ATTConversation] {
        var seen: Set<[[UInt8]]> = []
        return try ATTConversationCollector.conversations(path: Fixtures.capturePath(name)).filter {
            seen.insert($0.pdus.map { Array($0.bytes) }).inserted
        }
    }

    @Test(arguments: Fixtures.captures)
    func everyClientPDUBelongsToOneProcedure(_ name: String) throws {
        for c in try clientConversations(name) {
            let procedures = ClientProcedureInference.procedures(in: c)
            let covered = procedures.flatMap(\.requests).sorted()
            let clientPDUs = c.pdus.indices.filter {
                c.sender(of: $0) == .client && ATTOpcode(c.pdus[$0].opcode!).kind != .confirmation
            }
            #expect(covered == clientPDUs, "\(name): \(procedures)")
            #expect(!procedures.contains { if case .other = $0.kind { return true } else { return false } },
                    "\(name): \(procedures)")
        }
    }

    @Test func btgattClientSession() throws {
        let c = try #require(try clientConversations("kernel/bluez_hr_mtu517.btsnoop").first)
        let names = ClientProcedureInference.procedures(in: c).map(\.description)
        #expect(names.first == "Exchange MTU (client rx mtu 517)")
        #expect(names.contains("Discover All Primary Services 0x0001..0xffff"), "\(names)")
        #expect(names.contains("Discover All Characteristics 0x0001..0x0012"), "\(names)")
        #expect(names.contains("Read Multiple 0x0006,0x0010"), "\(names)")
        #expect(names.contains("Write Long 0x0003 from offset 0, 508 bytes"), "\(names)")
        #expect(names.contains("Read Long 0x0003 from offset 40"), "read-long-value 0x0003 40: \(names)")
        #expect(names.contains("Reliable Write of 2 parts"), "\(names)")
        #expect(names.contains("Prepared Writes cancelled (1 parts)"), "the refused 511-byte part, then Execute Write cancel: \(names)")
    }

    @Test func gatttoolRunsOneProcedurePerConnection() throws {
        let names = try clientConversations("kernel/gatttool_vs_btgatt.btsnoop").map {
            ClientProcedureInference.procedures(in: $0).map(\.description)
        }
        #expect(names == [
            ["Discover All Primary Services 0x0001..0xffff"],
            ["Discover All Characteristics 0x0001..0xffff"],
            ["Discover All Characteristic Descriptors 0x0001..0xffff"],
            ["Read Long 0x0003 from offset 0"],
            ["Read 0x0010"],
            ["Write 0x0012 01"],
            ["Write 0x0003 676174746f6f6c2077617320686572652e"],
            ["Discover Primary Service by UUID 180D 0x0001..0xffff"],
            ["Read Using Characteristic UUID 2A00 0x0001..0xffff"],
        ])
    }
}
