import ATT
import Capture
import HCI
import Synchronization

/// An ``ATTLink`` that records its traffic in a capture: for transports whose HCI we do
/// not see (the kernel owns it), it writes what a controller would have exchanged with
/// us, through ``SynthesizedHCI`` like the memory radio: LE Connection Complete when
/// wrapped, each PDU in either direction as ACL-framed L2CAP on CID 4, and Disconnection
/// Complete with the reason when the link closes.
final class SnoopedATTLink: ATTLink {
    private let link: any ATTLink
    private let file: SnoopFile
    private let handle: UInt16

    var peerAddress: BluetoothAddress { link.peerAddress }
    var peerAddressType: BluetoothAddressType { link.peerAddressType }

    /// - Parameters:
    ///   - handle: the connection handle the capture shows; unique per capture so
    ///     decoders keep the links apart.
    ///   - isCentral: our role on the link.
    init(_ link: any ATTLink, file: SnoopFile, handle: UInt16, isCentral: Bool) {
        self.link = link
        self.file = file
        self.handle = handle
        file.write([SynthesizedHCI.connectionComplete(
            handle: handle, isCentral: isCentral, peerAddressType: link.peerAddressType == .public ? 0x00 : 0x01,
            peer: link.peerAddress, at: SnoopFile.now())])
    }

    /// Records each event of the batch as the owner takes it, with no task between:
    /// the capture keeps the order the engine sees.
    nonisolated(nonsending) func receive() async -> [LinkEvent] {
        let batch = await link.receive()
        for event in batch {
            switch event {
            case .received(let pdu):
                file.write(SynthesizedHCI.attPDU(pdu, handle: handle, direction: .received, at: SnoopFile.now()))
            case .closed(let reason):
                file.write([SynthesizedHCI.disconnectionComplete(handle: handle, reason: Self.hciReason(reason),
                                                                 at: SnoopFile.now())])
            }
        }
        return batch
    }

    func recycle(_ batch: inout [LinkEvent]) { link.recycle(&batch) }

    func send(_ pdu: [UInt8]) {
        // Recorded when queued: the link sends in queue order, so the capture's order of
        // our PDUs is the order they leave in.
        file.write(SynthesizedHCI.attPDU(pdu, handle: handle, direction: .sent, at: SnoopFile.now()))
        link.send(pdu)
    }

    func send(_ pdu: ArraySlice<UInt8>) {
        file.write(SynthesizedHCI.attPDU(Array(pdu), handle: handle, direction: .sent, at: SnoopFile.now()))
        link.send(pdu)
    }

    /// The Disconnection Complete reason a controller would have reported: its own when
    /// it gave one; "terminated by local host" when our side ended the link; otherwise
    /// "connection timeout", the code for a link lost without a word.
    static func hciReason(_ reason: DisconnectReason) -> UInt8 {
        switch reason {
        case .hci(let status): status.rawValue
        case .cancelled, .attBearerClosed: 0x16
        case .connectionTimeout, .transport: 0x08
        }
    }

    func takeDroppedCount() -> Int { link.takeDroppedCount() }
    func takeDroppedNotifications() -> DroppedNotifications { link.takeDroppedNotifications() }
    var canSend: Bool { link.canSend }
    var hasEnded: Bool { link.hasEnded }
    func sendReady() async { await link.sendReady() }
    func raiseSecurity() async throws(AttuneError) { try await link.raiseSecurity() }
    func pair() async throws(AttuneError) { try await link.pair() }
    var security: LinkSecurity { link.security }
    func close() { link.close() }
}
