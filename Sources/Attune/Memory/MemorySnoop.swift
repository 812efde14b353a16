import Capture
import Foundation
import Synchronization

/// Records the traffic of a ``MemoryRadio`` as a btsnoop file (datalink 1002, HCI UART),
/// seen from the central's host, so tshark, btmon and `attune decode` open it like a
/// capture of a real controller.
///
/// An in-memory link has no HCI, so the recorder synthesizes the framing a controller
/// would have produced: HCI_LE_Connection_Complete when a link comes up, every ATT PDU
/// as an L2CAP basic frame on CID 4 carried in ACL packets of at most 251 bytes (the LE
/// Data Length Extension maximum, so long PDUs show real fragmentation), and
/// HCI_Disconnection_Complete with the reason when it ends.
///
/// ```swift
/// let radio = MemoryRadio()
/// let snoop = try MemorySnoop(path: "session.btsnoop")
/// radio.setTap(snoop.record)
/// ...
/// try snoop.finish()
/// ```
public final class MemorySnoop: Sendable {
    /// The longest ACL payload per packet.
    static let aclFragment = 251

    private struct State {
        var writer: CaptureWriter<FileOutput>
        var failure: CaptureError?
        var finished = false
    }

    private let state: Mutex<State>
    /// Where the capture goes.
    public let path: String

    /// Creates (or truncates) the file and writes the btsnoop header.
    public init(path: String) throws(CaptureError) {
        self.path = path
        let writer = try CaptureWriter(output: try FileOutput(path: path), format: .btsnoop(.hciUART))
        state = Mutex(State(writer: writer))
    }

    /// Records one tap event; pass this method to ``MemoryRadio/setTap(_:)``. The first
    /// write error stops recording and is thrown by ``finish()``.
    @Sendable public func record(_ event: MemoryTapEvent) {
        let now = Self.microsecondsSince1970()
        state.withLock { s in
            guard !s.finished, s.failure == nil else { return }
            do throws(CaptureError) {
                for record in Self.records(for: event, at: now) { try s.writer.write(record) }
            } catch {
                s.failure = error
            }
        }
    }

    /// Flushes the file; later events are ignored. Throws the first error recording met.
    public func finish() throws(CaptureError) {
        let failure = state.withLock { s -> CaptureError? in
            guard !s.finished else { return s.failure }
            s.finished = true
            if s.failure == nil {
                do throws(CaptureError) { try s.writer.finish() } catch { s.failure = error }
            }
            return s.failure
        }
        if let failure { throw failure }
    }

    /// The HCI packets a controller would have exchanged with the central's host.
    static func records(for event: MemoryTapEvent, at time: Int64) -> [CaptureRecord] {
        switch event {
        case let .connected(connection, _, peripheral):
            // LE Connection Complete (Vol 4 Part E §7.7.65.1): status, handle, role
            // central, peer address type random (memory controllers use random static
            // addresses), peer address, 30 ms interval, latency 0, 720 ms timeout.
            var parameters: [UInt8] = [0x01, 0x00] + le16(connection) + [0x00, 0x01]
            parameters += peripheral.littleEndianBytes
            parameters += le16(0x0018) + le16(0) + le16(0x0048) + [0x00]
            return [eventRecord(0x3E, parameters, at: time)]
        case let .pdu(connection, fromCentral, pdu):
            // An L2CAP basic frame on the ATT channel, cut into ACL packets.
            let frame = le16(UInt16(truncatingIfNeeded: pdu.count)) + le16(0x0004) + pdu
            var records: [CaptureRecord] = []
            var offset = 0
            while offset < frame.count {
                let end = min(frame.count, offset + aclFragment)
                let boundary: ACLPacketBoundary = offset > 0 ? .continuing : fromCentral ? .firstNonFlushable : .firstFlushable
                let packet = ACLDataPacket(handle: connection, boundary: boundary, data: frame[offset..<end])
                records.append(CaptureRecord(kind: .hci(.aclData), direction: fromCentral ? .sent : .received,
                                             timestamp: time, payload: packet.encoded[...]))
                offset = end
            }
            return records
        case let .disconnected(connection, reason):
            // Disconnection Complete (§7.7.5): status, handle, reason.
            return [eventRecord(0x05, [0x00] + le16(connection) + [reason.rawValue], at: time)]
        }
    }

    private static func eventRecord(_ code: UInt8, _ parameters: [UInt8], at time: Int64) -> CaptureRecord {
        CaptureRecord(kind: .hci(.event), direction: .received, timestamp: time,
                      payload: ([code, UInt8(parameters.count)] + parameters)[...])
    }

    private static func le16(_ v: UInt16) -> [UInt8] { [UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8)] }

    private static func microsecondsSince1970() -> Int64 {
        Int64((Date().timeIntervalSince1970 * 1_000_000).rounded())
    }
}
