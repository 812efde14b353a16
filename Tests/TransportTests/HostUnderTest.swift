import ControllerTestSupport
import Foundation
import HCI
import struct HCI.BluetoothAddress
import InteropTestSupport
import Synchronization
import Testing
import Transport

/// Our userland host on one of the lab's controllers, with every event it delivers
/// kept for the test to look at.
final class HostUnderTest: Sendable {
    let host: UserlandHost
    private let received = EventRecord<HostEvent>()
    private let collector: Task<Void, Never>

    /// Our random static address on the virtual link: routing there includes the address type.
    static func randomAddress(_ index: Int) -> BluetoothAddress {
        BluetoothAddress(0xC0, 0xA7, 0x7E, 0x00, 0x00, UInt8(index + 1))
    }

    /// This session's btsnoop capture (datalink 1002), written by our own recorder.
    let capturePath: String

    init(port: Int, index: Int = 0, commandSet: HostConfiguration.CommandSet = .automatic,
         captureDirectory: URL) throws {
        let configuration = HostConfiguration(randomAddress: Self.randomAddress(index), commandSet: commandSet)
        capturePath = captureDirectory.appendingPathComponent("attune-host-\(index).btsnoop").path
        host = try UserlandHost(endpoint: .tcp(host: "127.0.0.1", port: UInt16(port)),
                                configuration: configuration, recorder: try BTSnoopRecorder(path: capturePath))
        let events = host.events
        let received = self.received
        collector = Task {
            for await event in events { received.append(event) }
            received.finish()
        }
    }

    deinit {
        host.close()
        collector.cancel()
    }

    /// Closes the host and waits until its capture is complete on disk.
    func finish() async {
        host.close()
        await collector.value
    }

    /// Closes the host, then reads the session's capture with our decoder and with tshark:
    /// it must start with our Reset, hold every ATT PDU we received, and the two decoders
    /// must agree on every ATT PDU and its direction.
    func verifyCapture(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        await finish()
        let capture = try SessionCapture(path: capturePath)
        #expect(capture.firstRecordIsSentCommand, "capture starts with HCI_Reset, sent", sourceLocation: sourceLocation)
        let received = events.filter { if case .attributeData = $0 { return true } else { return false } }.count
        #expect(capture.attune.filter { !$0.sent }.count == received,
                "every ATT PDU delivered is in the capture", sourceLocation: sourceLocation)
        if let tshark = capture.tshark {
            #expect(tshark.map { "\($0.sent):\($0.opcode)" } == capture.attune.map { "\($0.sent):\($0.opcode)" },
                    "tshark and attune agree", sourceLocation: sourceLocation)
        }
    }

    var events: [HostEvent] { received.events }

    /// Waits for the first event (after `skipping` earlier matches) that `match` turns into
    /// a value: woken by the event, failing only at the hang guard or when the host ends.
    func waitFor<T: Sendable>(_ what: String, skipping: Int = 0,
                              _ match: @escaping @Sendable (HostEvent) -> T?) async throws -> T {
        try await received.waitFor("host event: \(what)", skipping: skipping, match)
    }

    /// Waits for the next ATT PDU on `handle` after `count` earlier ones.
    func attPDU(on handle: UInt16, after count: Int) async throws -> [UInt8] {
        try await waitFor("ATT PDU", skipping: count) { event in
            if case .attributeData(handle, let pdu) = event { return pdu }
            return nil
        }
    }

    func attPDUCount(on handle: UInt16) -> Int {
        events.filter { if case .attributeData(handle, _) = $0 { return true } else { return false } }.count
    }

    /// Sends an ATT request and waits for the PDU that answers it.
    func exchangeATT(_ request: [UInt8], on handle: UInt16) async throws -> [UInt8] {
        let before = attPDUCount(on: handle)
        try await host.sendATT(request, on: handle)
        return try await attPDU(on: handle, after: before)
    }
}

/// The complete local name in advertising data, if any (AD type 0x09).
func completeLocalName(in data: [UInt8]) -> String? {
    var index = 0
    while index < data.count {
        let length = Int(data[index])
        guard length > 0, index + 1 + length <= data.count else { return nil }
        if data[index + 1] == 0x09 {
            return String(decoding: data[(index + 2)..<(index + 1 + length)], as: UTF8.self)
        }
        index += 1 + length
    }
    return nil
}
