import class Transport.L2CAPATTSocket
import struct Transport.KernelTransportError

/// An ``ATTLink`` over a kernel L2CAP LE socket on the ATT channel (CID 4): one PDU per
/// datagram. Sends go through one writer task so PDUs leave in the order the engines
/// produced them.
final class KernelATTLink: ATTLink {
    let peerAddress: BluetoothAddress
    let peerAddressType: BluetoothAddressType
    let events: AsyncStream<LinkEvent>
    private let socket: L2CAPATTSocket
    private let outgoing: AsyncStream<[UInt8]>.Continuation

    init(socket: L2CAPATTSocket, peerAddress: BluetoothAddress, peerAddressType: BluetoothAddressType) {
        self.socket = socket
        self.peerAddress = peerAddress
        self.peerAddressType = peerAddressType
        let (events, eventContinuation) = AsyncStream.makeStream(of: LinkEvent.self)
        self.events = events
        let (queue, outgoing) = AsyncStream.makeStream(of: [UInt8].self)
        self.outgoing = outgoing
        Task {
            for await pdu in queue {
                do { try await socket.send(pdu) } catch { break }
            }
        }
        Task {
            do {
                for try await pdu in socket.datagrams { eventContinuation.yield(.received(pdu)) }
                eventContinuation.yield(.closed(.hci(HCIStatus(0x16))))
            } catch let error as KernelTransportError {
                // The kernel's errno says why the link ended; our own close (the socket is
                // closed by then) reads as 0x16.
                let ours = socket.isClosed
                if let reason = error.disconnectReason, !ours {
                    eventContinuation.yield(.closed(.hci(HCIStatus(reason.rawValue))))
                } else {
                    eventContinuation.yield(.closed(ours ? .hci(HCIStatus(0x16)) : .transport("\(error)")))
                }
            } catch {
                eventContinuation.yield(.closed(.transport("\(error)")))
            }
            eventContinuation.finish()
            outgoing.finish()
        }
    }

    func send(_ pdu: [UInt8]) { outgoing.yield(pdu) }

    /// The socket's send buffer absorbs bursts; the writer task waits when it is full.
    var canSend: Bool { !socket.isClosed }

    func sendReady() async {}

    func consumed() {}

    func close() {
        outgoing.finish()
        socket.close()
    }
}
