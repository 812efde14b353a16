import ATT
import Capture
import CaptureTestSupport
import Foundation
import HCI
import Replay
import Testing

/// Signed writes and cancelled prepared writes, replayed on the client side: our client
/// signs from the captured sign counter (the MAC, made with a key the capture does not
/// hold, is not compared) and cancels the prepared parts the captured client cancelled.
@Suite struct ClientReplaySignedWriteTests {
    static func replay(_ pdus: [(CaptureDirection, [UInt8])]) throws -> ReplayReport {
        var records: [CaptureRecord] = []
        var clock: Int64 = 1_700_000_000_000_000
        func tick() -> Int64 { clock += 1_000; return clock }
        records.append(SynthesizedHCI.connectionComplete(handle: 0x0040, isCentral: true, peerAddressType: 0,
                                                         peer: BluetoothAddress(0, 1, 2, 3, 4, 5), at: tick()))
        for (direction, pdu) in pdus { records += SynthesizedHCI.attPDU(pdu, handle: 0x0040, direction: direction, at: tick()) }
        records.append(SynthesizedHCI.disconnectionComplete(handle: 0x0040, reason: 0x13, at: tick()))
        var session = ReplaySession(reader: try CaptureReader(bytes: try writeAll(records, as: .btsnoop(.hciUART))),
                                    side: .client)
        let step = try #require(try session.next())
        return step.report
    }

    /// A Signed Write Command: opcode, handle, value, sign counter, 8 bytes of MAC.
    static func signed(_ handle: UInt16, _ value: [UInt8], counter: UInt32, mac: UInt8) -> [UInt8] {
        [0xD2, UInt8(handle & 0xFF), UInt8(handle >> 8)] + value
            + (0..<4).map { UInt8(truncatingIfNeeded: counter >> (8 * $0)) } + Array(repeating: mac, count: 8)
    }

    @Test func signedWritesReplayWithTheCapturedCounter() throws {
        let report = try Self.replay([
            (.sent, Self.signed(0x0010, [0x01, 0x02], counter: 7, mac: 0xAB)),
            (.sent, Self.signed(0x0010, [0x03], counter: 8, mac: 0xCD)),
        ])
        #expect(report.matched == 2, "\(report.divergences.map { "\($0.expected ?? []) vs \($0.actual ?? [])" })")
        #expect(report.diverged == 0)
        #expect(report.notReplayed == 0)
    }

    @Test func aSignedWriteWithAnotherValueDiverges() throws {
        // The counter the captured client skipped to is not ours: one diverges.
        let report = try Self.replay([
            (.sent, Self.signed(0x0010, [0x01], counter: 7, mac: 0xAB)),
            (.sent, Self.signed(0x0010, [0x01], counter: 9, mac: 0xAB)),
        ])
        #expect(report.matched == 1)
        #expect(report.diverged == 1)
    }

    @Test func cancelledPreparedWritesReplay() throws {
        let report = try Self.replay([
            (.sent, [0x16, 0x10, 0x00, 0x00, 0x00, 0x41, 0x42]),       // Prepare Write 0x0010 offset 0 "AB"
            (.received, [0x17, 0x10, 0x00, 0x00, 0x00, 0x41, 0x42]),
            (.sent, [0x16, 0x10, 0x00, 0x02, 0x00, 0x43]),             // offset 2 "C"
            (.received, [0x17, 0x10, 0x00, 0x02, 0x00, 0x43]),
            (.sent, [0x18, 0x00]),                                     // Execute Write: cancel
            (.received, [0x19]),
            (.sent, [0x0A, 0x10, 0x00]),                               // then a read
            (.received, [0x0B, 0x5A]),
        ])
        #expect(report.matched == 4, "\(report.divergences.map { "\($0.expected ?? []) vs \($0.actual ?? [])" })")
        #expect(report.diverged == 0)
        #expect(report.notReplayed == 0)
    }
}
