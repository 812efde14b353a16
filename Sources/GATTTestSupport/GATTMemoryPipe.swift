import ATT
import GATT

/// Our client and our server joined by an in-memory link: every PDU either side sends is
/// delivered to the other at once, in order, until both are quiet. For tests, benchmarks
/// and `attune demo`; no threads, no sockets, explicit time.
///
/// ```swift
/// var pipe = GATTMemoryPipe(server: GATTServer(database: db), clientConfiguration: .init(rxMTU: 185))
/// pipe.start()
/// let services = pipe.perform(.discoverAllPrimaryServices())
/// ```
public struct GATTMemoryPipe: Sendable {
    /// The client side (bearer and engine).
    public var client: GATTLink
    /// The server side.
    public var server: GATTServer
    /// The server's name for the client's connection.
    public let connection: ConnectionID
    /// The link's clock; advance it with ``advance(by:)``.
    public private(set) var now: MonotonicTime = .zero
    /// Client events not yet taken (notifications, indications, ready, service changes).
    public private(set) var clientEvents: [GATTClientEvent] = []
    /// Server events not yet taken (writes, subscriptions, confirmations).
    public private(set) var serverEvents: [GATTServerEvent] = []
    /// Completed client commands whose results were not yet taken.
    public private(set) var results: [GATTRequestID: Result<GATTClientResponse, GATTClientError>] = [:]
    /// PDUs carried, client to server and server to client.
    public private(set) var pdusToServer = 0
    public private(set) var pdusToClient = 0
    /// Bytes carried in each direction (ATT PDUs, no L2CAP header).
    public private(set) var bytesToServer = 0
    public private(set) var bytesToClient = 0
    /// How often the client asked to raise link security.
    public private(set) var securityRaises = 0

    var toServer: [[UInt8]] = []
    var output = GATTServerOutput()
    /// Called with every PDU carried: (client → server?, bytes). For `--snoop`-style logs.
    public var observer: (@Sendable (Bool, ArraySlice<UInt8>) -> Void)?

    public init(server: GATTServer, clientConfiguration: GATTClientConfiguration = GATTClientConfiguration(),
                clientDatabase: DiscoveredDatabase = DiscoveredDatabase(), security: LinkSecurity = .none,
                connection: ConnectionID = 1) {
        self.server = server
        self.connection = connection
        client = GATTLink(configuration: clientConfiguration, database: clientDatabase)
        self.server.connect(connection, security: security, peer: nil, at: now, into: &output)
    }

    /// Starts the client (Exchange MTU, discovery if configured, the subscriptions in
    /// `restoring` written again) and runs until quiet.
    public mutating func start(restoring: [Subscription] = []) {
        take(client.start(restoring: restoring, at: now))
        run()
    }

    /// Queues a command without running the link.
    @discardableResult
    public mutating func submit(_ command: GATTClientCommand) -> GATTRequestID {
        let (id, actions) = client.perform(command, at: now)
        take(actions)
        return id
    }

    /// Runs a command to completion and returns its result.
    public mutating func perform(_ command: GATTClientCommand) -> Result<GATTClientResponse, GATTClientError> {
        let id = submit(command)
        run()
        return results.removeValue(forKey: id) ?? .failure(.bearerClosed)
    }

    /// Takes the result of a submitted command, once it completed.
    public mutating func result(of id: GATTRequestID) -> Result<GATTClientResponse, GATTClientError>? {
        results.removeValue(forKey: id)
    }

    /// Lets the server act (notify, indicate, change its database) and carries what it sends.
    public mutating func withServer<R>(_ body: (inout GATTServer, ConnectionID, MonotonicTime, inout GATTServerOutput) throws -> R) rethrows -> R {
        let r = try body(&server, connection, now, &output)
        run()
        return r
    }

    /// Advances the clock, fires both sides' timers and runs until quiet.
    public mutating func advance(by duration: Duration) {
        now = now + duration
        take(client.tick(at: now))
        server.tick(at: now, into: &output)
        run()
    }

    /// Takes the client events gathered so far.
    public mutating func takeClientEvents() -> [GATTClientEvent] {
        defer { clientEvents.removeAll(keepingCapacity: true) }
        return clientEvents
    }

    /// Takes the server events gathered so far.
    public mutating func takeServerEvents() -> [GATTServerEvent] {
        defer { serverEvents.removeAll(keepingCapacity: true) }
        return serverEvents
    }

    /// Delivers PDUs both ways until neither side has anything to send.
    public mutating func run() {
        while true {
            if !output.pdus.isEmpty || !output.events.isEmpty {
                serverEvents += output.events
                let pdus = output.pdus.filter { $0.connection == connection }.map { output.bytes(of: $0) }
                let buffer = output.buffer
                output = GATTServerOutput()
                _ = buffer
                for pdu in pdus {
                    pdusToClient += 1
                    bytesToClient += pdu.count
                    observer?(false, pdu)
                    take(client.receive(pdu, at: now))
                }
                continue
            }
            guard !toServer.isEmpty else { return }
            let pdus = toServer
            toServer.removeAll(keepingCapacity: true)
            for pdu in pdus {
                pdusToServer += 1
                bytesToServer += pdu.count
                observer?(true, pdu[...])
                server.receive(pdu[...], from: connection, at: now, into: &output)
            }
        }
    }

    mutating func take(_ actions: [GATTClientAction]) {
        for action in actions {
            switch action {
            case let .send(bytes): toServer.append(bytes)
            case let .complete(id, result): results[id] = result
            case let .deliver(event): clientEvents.append(event)
            case .raiseSecurity:
                // The in-memory link pairs at once: encrypted and authenticated before the
                // client's repeated request arrives.
                server.updateSecurity(.authenticated, for: connection)
                client.setLinkEncrypted(true)
                securityRaises += 1
            case .scheduleDeadline, .close: break
            }
        }
    }
}
