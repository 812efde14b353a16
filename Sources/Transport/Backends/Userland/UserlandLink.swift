import ATT
import HCI

/// The ATT channel of one connection of the userland host, as the engines' ``ATTLink``:
/// batches come straight from the channel's bounded inbox, with no forwarding task.
final class UserlandLink: ATTLink {
    let peerAddress: BluetoothAddress
    let peerAddressType: BluetoothAddressType
    private let channel: UserlandATTChannel
    /// Encrypted with a stored bond before it was handed out.
    let isEncrypted: Bool
    /// Whether the GATT client's retry may pair (``PairingConfiguration/automatic``).
    private let pairsAutomatically: Bool

    init(channel: UserlandATTChannel, encrypted: Bool = false, pairsAutomatically: Bool = true) {
        self.channel = channel
        isEncrypted = encrypted
        self.pairsAutomatically = pairsAutomatically
        peerAddress = channel.connection.peerAddress
        peerAddressType = channel.connection.peerAddressType
    }

    nonisolated(nonsending) func receive() async -> [LinkEvent] {
        var batch = await channel.receive()
        defer { channel.inbox.recycle(&batch) }
        var events: [LinkEvent] = []
        events.reserveCapacity(batch.count)
        for event in batch {
            switch event {
            case .received(let pdu): events.append(.received(pdu))
            case .disconnected(let reason): events.append(.closed(.hci(reason)))
            case .ended(let error): events.append(.closed(.transport(error.description)))
            case .indicationBeforeConfirmation: events.append(.closed(.attBearerClosed(.indicationBeforeConfirmation)))
            }
        }
        return events
    }

    func takeDroppedCount() -> Int { channel.takeDroppedCount() }
    func takeDroppedNotifications() -> DroppedNotifications { channel.takeDroppedNotifications() }

    func send(_ pdu: [UInt8]) { channel.send(pdu) }
    func send(_ pdu: ArraySlice<UInt8>) { channel.send(pdu) }
    var canSend: Bool { channel.canSend }
    var hasEnded: Bool { channel.hasEnded }
    func sendReady() async { await channel.sendReady() }

    /// Pairs through the host's Security Manager (LE Secure Connections Just Works unless
    /// configured otherwise) and returns once the link is encrypted.
    func raiseSecurity() async throws(AttuneError) {
        guard pairsAutomatically else {
            throw .securityUnavailable("automatic pairing is off (PairingConfiguration.automatic; the CLI's --no-pair): "
                + "pair first (Peripheral.pair(), attune pair ADDRESS)")
        }
        try await channel.raiseSecurity()
    }

    func pair() async throws(AttuneError) { try await channel.raiseSecurity() }

    var security: LinkSecurity { channel.security }

    func close() { channel.close() }
}
