import HCI
import class Transport.UserlandATTChannel

/// The ATT channel of one connection of the userland host, as the engines' ``ATTLink``.
final class UserlandLink: ATTLink {
    let peerAddress: BluetoothAddress
    let peerAddressType: BluetoothAddressType
    let events: AsyncStream<LinkEvent>
    private let channel: UserlandATTChannel
    private let pump: Task<Void, Never>

    init(channel: UserlandATTChannel) {
        self.channel = channel
        peerAddress = channel.connection.peerAddress
        peerAddressType = channel.connection.peerAddressType
        let (events, sink) = AsyncStream.makeStream(of: LinkEvent.self)
        self.events = events
        // One task forwards in order; the channel's stream ends after its closing event.
        pump = Task {
            for await event in channel.events {
                switch event {
                case .received(let pdu): sink.yield(.received(pdu))
                case .disconnected(let reason): sink.yield(.closed(.hci(reason)))
                case .ended(let error): sink.yield(.closed(.transport(error.description)))
                }
            }
            sink.finish()
        }
    }

    deinit { pump.cancel() }

    func send(_ pdu: [UInt8]) { channel.send(pdu) }
    var canSend: Bool { channel.canSend }
    func sendReady() async { await channel.sendReady() }
    /// The host buffers received PDUs itself; nothing to return.
    func consumed() {}
    func close() { channel.close() }
}
