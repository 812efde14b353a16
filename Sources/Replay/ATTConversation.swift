import ATT
import Capture
import HCI

/// The ATT traffic of one connection as one host saw it: the PDUs on one controller's
/// connection handle between LE Connection Complete and Disconnection Complete.
///
/// This is what replay drives our engines with. Captures with two controllers (btmon with
/// both ends of a virtual link) hold each connection twice, once per controller.
public struct ATTConversation: Sendable {
    public var controller: UInt16
    public var handle: UInt16
    /// What LE Connection Complete said, when the capture showed it.
    public var connection: CapturedConnection?
    public var pdus: [CapturedATTPDU]
    /// The receive MTUs exchanged before ``pdus``, when they are a later part of a longer
    /// conversation (see ``ATTConversationPiece``): the exchange usually opens a
    /// connection, and what it settled holds for the rest of it.
    public var mtusBefore: (client: UInt16?, server: UInt16?) = (nil, nil)

    public init(controller: UInt16, handle: UInt16, connection: CapturedConnection?, pdus: [CapturedATTPDU] = []) {
        self.controller = controller
        self.handle = handle
        self.connection = connection
        self.pdus = pdus
    }

    /// Which ATT role sent a PDU of this conversation; nil for unknown opcodes.
    public func sender(of index: Int) -> ATTRole? {
        pdus[index].opcode.flatMap { ATTRole.sender(of: ATTOpcode($0)) }
    }

    /// The capturing host's ATT role: the role of the PDUs it sent, by majority
    /// (a host can be client and server at once; the larger share wins).
    public var localRole: ATTRole? {
        var client = 0, server = 0
        for (i, pdu) in pdus.enumerated() {
            guard let role = sender(of: i) else { continue }
            let local = pdu.frame.direction == .sent ? role : role.peer
            if local == .client { client += 1 } else { server += 1 }
        }
        if client == 0 && server == 0 { return nil }
        return client >= server ? .client : .server
    }

    /// The receive MTUs the client and the server announced by Exchange MTU (the last
    /// of each, as an exchange happens once per connection), nil for a side that did not.
    public var exchangedMTUs: (client: UInt16?, server: UInt16?) {
        var (client, server) = mtusBefore
        for pdu in pdus {
            switch pdu.pdu {
            case let .success(.exchangeMTURequest(r)): client = r.clientRxMTU
            case let .success(.exchangeMTUResponse(r)): server = r.serverRxMTU
            default: break
            }
        }
        return (client, server)
    }

    /// The server's receive MTU, as its Exchange MTU Response announced it.
    public var serverRxMTU: UInt16? { exchangedMTUs.server }

    /// The ATT_MTU both sides settled on by Exchange MTU, or 23 when they did not exchange.
    public var mtu: Int {
        let (client, server) = exchangedMTUs
        guard let client, let server else { return 23 }
        return max(23, min(Int(client), Int(server)))
    }

    /// Requests paired with their responses and indications with their confirmations,
    /// in the order the requests were sent. Each sender has at most one of each
    /// outstanding, so the next response from the other side answers the oldest request.
    public var transactions: [ATTTransaction] {
        var result: [ATTTransaction] = []
        // Outstanding request (or indication) per sending role.
        var open: [ATTRole: Int] = [:]
        for (i, pdu) in pdus.enumerated() {
            guard let raw = pdu.opcode else { continue }
            let opcode = ATTOpcode(raw)
            guard let role = ATTRole.sender(of: opcode) else { continue }
            switch opcode.kind {
            case .request, .indication:
                if let stale = open[role] { result.append(ATTTransaction(request: stale, response: nil)) }
                open[role] = i
            case .response, .confirmation:
                // A response answers the client's request; a confirmation the server's indication.
                let asker = role.peer
                if let r = open[asker] {
                    result.append(ATTTransaction(request: r, response: i))
                    open[asker] = nil
                }
            default:
                break
            }
        }
        for (_, r) in open { result.append(ATTTransaction(request: r, response: nil)) }
        return result.sorted { $0.request < $1.request }
    }
}
