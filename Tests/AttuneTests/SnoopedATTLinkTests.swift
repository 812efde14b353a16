import Capture
import Foundation
import Synchronization
import Testing
@testable import Transport
@testable import Attune

/// The kernel transport's capture: a link the kernel owns, recorded as the HCI a
/// controller would have exchanged. A fake link stands in for the L2CAP socket, so no VM
/// is needed.
struct SnoopedATTLinkTests {
    /// An ``ATTLink`` whose received side the test drives and whose sends it keeps.
    final class FakeLink: ATTLink {
        let peerAddress = BluetoothAddress(0x11, 0x22, 0x33, 0x44, 0x55, 0x66)
        let peerAddressType = BluetoothAddressType.public
        let peer = LinkInbox<LinkEvent>(capacity: 16)
        let sent = Mutex<[[UInt8]]>([])
        nonisolated(nonsending) func receive() async -> [LinkEvent] { await peer.take() }
        func send(_ pdu: [UInt8]) { sent.withLock { $0.append(pdu) } }
        var canSend: Bool { true }
        var hasEnded: Bool { false }
        func sendReady() async {}
        func raiseSecurity() async throws(AttuneError) {}
        func close() {}
    }

    @Test(.timeLimit(.minutes(10)))
    func kernelLinkIsRecordedAsSynthesizedHCI() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("kernel-\(UUID().uuidString).btsnoop").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try SnoopFile(path: path)
        let fake = FakeLink()
        let link = SnoopedATTLink(fake, file: file, handle: 3, isCentral: false)
        let longRead = [0x0B] + [UInt8](repeating: 0x5A, count: 300)   // two ACL fragments
        link.send([0x02, 0xF7, 0x00])                                   // Exchange MTU Request
        fake.peer.push(.received([0x03, 0x00, 0x02]))
        fake.peer.push(.received(longRead))
        fake.peer.finish(.closed(.hci(HCIStatus.remoteUserTerminatedConnection)))
        var passedOn: [LinkEvent] = []
        while true {   // ends once the fake's inbox is drained
            let batch = await link.receive()
            if batch.isEmpty { break }
            passedOn += batch
        }

        #expect(fake.sent.withLock { $0 } == [[0x02, 0xF7, 0x00]])
        #expect(passedOn.count == 3, "the engine still sees every event")
        #expect(file.failure == nil)

        var reader = try CaptureReader(path: path)
        var decoder = CaptureDecoder()
        var connected: CapturedConnection?
        var att: [(CaptureDirection, [UInt8])] = []
        var reason: HCIStatus?
        while let record = try reader.next() {
            var displaced: CaptureEvent?
            switch decoder.process(record, dropped: &displaced) {
            case .connected(let c)?: connected = c
            case .frame(let frame)? where frame.channel == .attribute && frame.connectionHandle == 3:
                att.append((frame.direction, Array(frame.payload)))
            case .disconnected(_, 3, let r, _)?: reason = r
            default: break
            }
            #expect(displaced == nil)
        }
        #expect(connected?.handle == 3)
        #expect(connected?.role == .peripheral)
        #expect(connected?.peerAddress == fake.peerAddress)
        #expect(connected?.peerAddressType == .public)
        #expect(att.map(\.0) == [.sent, .received, .received])
        #expect(att.map(\.1) == [[0x02, 0xF7, 0x00], [0x03, 0x00, 0x02], longRead])
        #expect(reason == HCIStatus.remoteUserTerminatedConnection)
        #expect(reader.recordCount == 6, "connect, 1 + 1 + 2 ACL, disconnect")
    }

    @Test func reasonsWithoutAControllerCodeMapToTheNearestOne() {
        #expect(SnoopedATTLink.hciReason(.hci(HCIStatus.connectionTimeout)) == 0x08)
        #expect(SnoopedATTLink.hciReason(.cancelled) == 0x16)
        #expect(SnoopedATTLink.hciReason(.transport("EPIPE")) == 0x08)
    }
}
