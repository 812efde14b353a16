import ATT
import Capture
import CaptureTestSupport
import FixtureTestSupport
import Foundation
import GATT
import HCI
import Replay
import Testing

/// What ``ReplaySession`` does beyond the fixture results (pinned by the fixture tests).
@Suite struct ReplaySessionTests {
    /// The database our server is built directly from the capture is exactly the one
    /// GATT's loader makes of the captured database's JSON (the former text round trip).
    @Test(arguments: Fixtures.captures)
    func theDirectDatabaseIsTheJSONOne(_ name: String) throws {
        var seen: Set<[[UInt8]]> = []
        let conversations = try ATTConversationCollector.conversations(path: Fixtures.capturePath(name)).filter {
            seen.insert($0.pdus.map { Array($0.bytes) }).inserted
        }
        let rebuilt = CapturedDatabase(conversations: conversations)
        let json = try JSONSerialization.jsonObject(with: Data(rebuilt.json.description.utf8))
        let loaded = try DatabaseJSON.database(from: json)
        let direct = try rebuilt.attributeDatabase()
        #expect(direct == loaded, "\(name)")
        #expect(!direct.attributes.isEmpty)
    }

    /// btmon's capture of both ends of a virtual link holds each conversation twice; the
    /// session replays one copy of each.
    @Test func mirroredConversationsReplayOnce() throws {
        let path = Fixtures.capturePath("kernel/bluez_hr_mtu517.btsnoop")
        let all = try ATTConversationCollector.conversations(path: path)
        var session = try ReplaySession(path: path, side: .server)
        var steps: [ReplaySession.Step] = []
        while let step = try session.next() { steps.append(step) }
        // Each step is the conversation of the capture on its controller and handle, in order.
        var remaining = all[...]
        var replayed: [ATTConversation] = []
        for step in steps {
            let i = try #require(remaining.firstIndex { $0.controller == step.controller && $0.handle == step.handle })
            #expect(remaining[i].pdus.count == step.pduCount)
            replayed.append(remaining[i])
            remaining = remaining[(i + 1)...]
        }
        #expect(all.count == 2 * replayed.count)
        #expect(Set(replayed.map { $0.pdus.map { Array($0.bytes) } }).count == replayed.count)
        #expect(replayed.map(\.controller) == all.filter { c in replayed.contains { $0.controller == c.controller && $0.handle == c.handle } }.map(\.controller))
    }

    /// Two connections to one server that exchanged different MTUs: each conversation's
    /// Exchange MTU Response is compared with our server announcing that conversation's
    /// MTU (a single capture-wide MTU diverged on the second).
    @Test func eachConversationKeepsItsOwnMTU() throws {
        var records: [CaptureRecord] = []
        var clock: Int64 = 1_700_000_000_000_000
        func tick() -> Int64 { clock += 1_000; return clock }
        for (handle, mtu) in [(UInt16(0x0040), UInt16(100)), (0x0041, 247)] {
            records.append(SynthesizedHCI.connectionComplete(handle: handle, isCentral: false, peerAddressType: 0,
                                                             peer: BluetoothAddress(0, 1, 2, 3, 4, UInt8(handle & 0xFF)), at: tick()))
            for (direction, pdu) in [(CaptureDirection.received, [0x02, 0xF7, 0x00]),
                                     (.sent, [0x03, UInt8(mtu & 0xFF), UInt8(mtu >> 8)]),
                                     (.received, [0x10, 0x01, 0x00, 0xFF, 0xFF, 0x00, 0x28]),
                                     (.sent, [0x11, 0x06, 0x01, 0x00, 0x03, 0x00, 0x0F, 0x18]),
                                     (.received, [0x0A, 0x01, 0x00]),
                                     (.sent, [0x0B, 0x0F, 0x18])] as [(CaptureDirection, [UInt8])] {
                records += SynthesizedHCI.attPDU(pdu, handle: handle, direction: direction, at: tick())
            }
            records.append(SynthesizedHCI.disconnectionComplete(handle: handle, reason: 0x13, at: tick()))
        }
        let file = try writeAll(records, as: .btsnoop(.hciUART))
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("attune-mtu-\(UUID().uuidString).btsnoop").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(file)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        for streamed in [false, true] {
            var session = streamed
                ? ReplaySession(reader: try CaptureReader(bytes: file), side: .server)
                : try ReplaySession(path: path, side: .server)
            var steps: [ReplaySession.Step] = []
            while let step = try session.next() { steps.append(step) }
            #expect(session.databaseSource == (streamed ? .rebuiltWhileStreaming : .rebuilt(attributes: 1)))
            #expect(steps.map(\.serverRxMTU) == [100, 247])
            #expect(steps.map(\.report.matched) == [3, 3])
            #expect(steps.flatMap(\.report.divergences).isEmpty,
                    "\(steps.flatMap(\.report.divergences).map { "\($0.expected ?? []) \($0.actual ?? [])" })")
        }
    }

    /// A conversation that ends while an earlier-starting one is still open waits for it,
    /// so conversations come out in the order of their first PDU, as the collector
    /// sorts them.
    @Test func overlappingConnectionsComeOutInOrderOfTheirFirstPDU() throws {
        var records: [CaptureRecord] = []
        var clock: Int64 = 1_700_000_000_000_000
        func tick() -> Int64 { clock += 1_000; return clock }
        func read(_ handle: UInt16) {
            records += SynthesizedHCI.attPDU([0x0A, 0x03, 0x00], handle: handle, direction: .received, at: tick())
            records += SynthesizedHCI.attPDU([0x0B, 0x01], handle: handle, direction: .sent, at: tick())
        }
        read(0x0040)        // A starts
        read(0x0041)        // B starts
        records.append(SynthesizedHCI.disconnectionComplete(handle: 0x0041, reason: 0x13, at: tick()))  // B ends first
        read(0x0040)
        records.append(SynthesizedHCI.disconnectionComplete(handle: 0x0040, reason: 0x13, at: tick()))
        read(0x0042)        // C, after both
        var stream = ATTConversationStream(reader: try CaptureReader(bytes: try writeAll(records, as: .btsnoop(.hciUART))))
        var handles: [UInt16] = []
        while let c = try stream.next() { handles.append(c.handle) }
        #expect(handles == [0x0040, 0x0041, 0x0042])
    }

    /// The same session repeated on one controller (a sensor read every minute) is not a
    /// mirror: each connection replays.
    @Test func repeatedSessionsAreNotMirrors() throws {
        var records: [CaptureRecord] = []
        var clock: Int64 = 1_700_000_000_000_000
        func tick() -> Int64 { clock += 1_000; return clock }
        for _ in 0..<3 {
            records += SynthesizedHCI.attPDU([0x0A, 0x01, 0x00], handle: 0x0040, direction: .received, at: tick())
            records += SynthesizedHCI.attPDU([0x0B, 0x0F, 0x18], handle: 0x0040, direction: .sent, at: tick())
            records.append(SynthesizedHCI.disconnectionComplete(handle: 0x0040, reason: 0x13, at: tick()))
        }
        var session = ReplaySession(reader: try CaptureReader(bytes: try writeAll(records, as: .btsnoop(.hciUART))),
                                    side: .client)
        var count = 0
        while try session.next() != nil { count += 1 }
        #expect(count == 3)
    }
}
