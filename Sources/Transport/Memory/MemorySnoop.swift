import Capture
import HCI
import Synchronization

/// Records the traffic of a ``MemoryRadio`` as a btsnoop file (datalink 1002, HCI UART),
/// seen from the central's host, so tshark, btmon and `attune decode` open it like a
/// capture of a real controller.
///
/// An in-memory link has no HCI, so the recorder synthesizes the framing a controller
/// would have produced (``SynthesizedHCI``, shared with the kernel transport): HCI_LE_Connection_Complete when a link comes up, every ATT PDU
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
    /// The capture every record goes to.
    public let file: SnoopFile
    private let finished = Mutex(false)
    /// Where the capture goes.
    public var path: String { file.path }

    /// Creates (or truncates) the file and writes the btsnoop header.
    public convenience init(path: String) throws(CaptureError) {
        self.init(file: try SnoopFile(path: path))
    }

    /// Records into an open capture (the managers' `snoop:` option).
    public init(file: SnoopFile) {
        self.file = file
    }

    /// Records one tap event; pass this method to ``MemoryRadio/setTap(_:)``. The first
    /// write error stops recording and is thrown by ``finish()``.
    @Sendable public func record(_ event: MemoryTapEvent) {
        guard !finished.withLock({ $0 }) else { return }
        file.write(Self.records(for: event, at: SnoopFile.now()))
    }

    /// Ends recording (the file is flushed per event already); later events are ignored.
    /// Throws the first error recording met.
    public func finish() throws(CaptureError) {
        finished.withLock { $0 = true }
        if let failure = file.failure { throw failure }
    }

    /// The HCI packets a controller would have exchanged with the central's host.
    static func records(for event: MemoryTapEvent, at time: Int64) -> [CaptureRecord] {
        switch event {
        case let .connected(connection, _, peripheral):
            // Memory controllers use random static addresses.
            return [SynthesizedHCI.connectionComplete(handle: connection, isCentral: true, peerAddressType: 0x01,
                                                      peer: peripheral, at: time)]
        case let .pdu(connection, fromCentral, pdu):
            return SynthesizedHCI.attPDU(pdu, handle: connection, direction: fromCentral ? .sent : .received, at: time)
        case let .disconnected(connection, reason):
            return [SynthesizedHCI.disconnectionComplete(handle: connection, reason: reason.rawValue, at: time)]
        }
    }
}
