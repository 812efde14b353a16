import ATT
import Capture
import FixtureTestSupport
import HCI
import Replay
import Testing

/// Captures split into per-connection ATT conversations with paired transactions, and
/// the server database rebuilt from the captured responses.
@Suite struct ConversationTests {
    @Test(arguments: Fixtures.captures)
    func everyPDUBelongsToOneConversation(_ name: String) throws {
        let conversations = try ATTConversationCollector.conversations(path: Fixtures.capturePath(name))
        var extractor = try ATTPDUExtractor(path: Fixtures.capturePath(name))
        var total = 0
        while try extractor.next() != nil { total += 1 }
        #expect(conversations.reduce(0) { $0 + $1.pdus.count } == total)
        for c in conversations {
            #expect(c.localRole != nil)
            let transactions = c.transactions
            // Every response or confirmation answers exactly one request or indication.
            let answered = transactions.compactMap(\.response)
            #expect(Set(answered).count == answered.count)
            for t in transactions {
                guard let r = t.response else { continue }
                let ask = ATTOpcode(c.pdus[t.request].opcode!), answer = ATTOpcode(c.pdus[r].opcode!)
                if ask.kind == .indication {
                    #expect(answer.kind == .confirmation)
                } else if answer.rawValue != 0x01 {
                    #expect(answer.rawValue == ask.rawValue + 1, "\(name): \(ask.name) answered by \(answer.name)")
                } else if case let .success(.errorResponse(e)) = c.pdus[r].pdu {
                    #expect(e.requestOpcode == ask, "\(name): error for \(e.requestOpcode.name) answers \(ask.name)")
                }
            }
        }
    }

    @Test func kernelCaptureHoldsBothEnds() throws {
        let conversations = try ATTConversationCollector.conversations(path: Fixtures.capturePath("kernel/bluez_hr_mtu517.btsnoop"))
        #expect(conversations.count == 2)
        let roles = Set(conversations.compactMap(\.localRole))
        #expect(roles == [.client, .server])
        for c in conversations {
            #expect(c.mtu == 517)
            #expect(c.handle == 0x2A)
            #expect(c.pdus.count == 122)
        }
        let central = try #require(conversations.first { $0.controller == 0 })
        #expect(central.connection?.role == .central)
        #expect(central.connection?.peerAddress.description == "00:AA:01:01:00:01")
        #expect(central.localRole == .client)
    }

    @Test func gatttoolCaptureHasOneConversationPerConnection() throws {
        let conversations = try ATTConversationCollector.conversations(path: Fixtures.capturePath("kernel/gatttool_vs_btgatt.btsnoop"))
        // Nine gatttool runs, each seen by both controllers.
        #expect(conversations.count == 18)
        #expect(conversations.allSatisfy { $0.mtu == 23 })
    }

    @Test func heartRateServerIsRebuiltFromTheCapture() throws {
        let conversations = try ATTConversationCollector.conversations(path: Fixtures.capturePath("kernel/bluez_hr_mtu517.btsnoop"))
        let client = try #require(conversations.first { $0.localRole == .client })
        let db = CapturedDatabase(conversation: client)
        let uuids = db.services.compactMap(\.uuid)
        #expect(uuids.contains(BluetoothUUID(0x180D)), "services: \(db.services)")
        #expect(uuids.contains(BluetoothUUID(0x1800)))
        let types = Set(db.attributes.values.compactMap(\.type))
        #expect(types.contains(BluetoothUUID(0x2A37)), "Heart Rate Measurement")
        #expect(types.contains(BluetoothUUID(0x2900)), "Characteristic Extended Properties, the one descriptor btgatt-client discovered")
        // Every service declaration's value is its UUID.
        for s in db.services {
            let decl = try #require(db.attributes[s.start])
            #expect(decl.value.flatMap { BluetoothUUID(littleEndian: $0[...]) } == s.uuid)
        }
        let json = db.json.description
        #expect(json.contains("\"schema\":\"attune-captured-db/1\""))
        #expect(json.contains("\"type\":\"2a37\""))
    }

    @Test func longValuesAreJoinedFromReadBlob() throws {
        let conversations = try ATTConversationCollector.conversations(path: Fixtures.capturePath("inproc_mtu185_central.btsnoop"))
        let client = try #require(conversations.first)
        #expect(client.localRole == .client)
        #expect(client.mtu == 185)
        let db = CapturedDatabase(conversation: client)
        // Read + Read Blob of handle 0x001a gave 0x00...0xff then 0x00...0x2b (300 bytes).
        let long = try #require(db.attributes[AttributeHandle(0x001A)])
        #expect(long.value?.count == 300)
        #expect(long.valueIsComplete)
    }
}
