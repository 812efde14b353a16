import ATT
@testable import GATT

/// Drives a ``GATTLink`` by hand: collects what it sends, completes and delivers.
struct ClientHarness {
    var connection: GATTLink
    var now = MonotonicTime.zero
    var sent: [[UInt8]] = []
    var results: [GATTRequestID: Result<GATTClientResponse, GATTClientError>] = [:]
    var events: [GATTClientEvent] = []
    var closed: GATTClientError?
    var raisedSecurity = 0
    var deadline: MonotonicTime?

    /// A connected client that has already exchanged MTU `mtu`.
    init(mtu: UInt16 = 23, configuration: GATTClientConfiguration = GATTClientConfiguration(), database: DiscoveredDatabase = DiscoveredDatabase()) {
        var c = configuration
        c.rxMTU = mtu
        connection = GATTLink(configuration: c, database: database)
        take(connection.start(at: now))
        if c.exchangesMTUOnStart {
            _ = sent.removeFirst()
            receive([0x03, UInt8(mtu & 0xFF), UInt8(mtu >> 8)])
        }
    }

    /// A harness around a connection that has not been started.
    init(connection: GATTLink) {
        self.connection = connection
    }

    mutating func take(_ actions: [GATTClientAction]) {
        for a in actions {
            switch a {
            case let .send(b): sent.append(b)
            case let .complete(id, r): results[id] = r
            case let .deliver(e): events.append(e)
            case let .close(e): closed = e
            case .raiseSecurity: raisedSecurity += 1
            case let .scheduleDeadline(d): deadline = d
            }
        }
    }

    @discardableResult
    mutating func perform(_ command: GATTClientCommand) -> GATTRequestID {
        let (id, actions) = connection.perform(command, at: now)
        take(actions)
        return id
    }

    mutating func receive(_ bytes: [UInt8]) { take(connection.receive(bytes[...], at: now)) }

    mutating func receive(hex: String) { receive(parseHex(hex)!) }

    /// The next PDU the client sent, as hex ("" when it sent nothing).
    mutating func nextSent() -> String { sent.isEmpty ? "" : hexString(sent.removeFirst()) }

    mutating func advance(by seconds: Double) {
        now = MonotonicTime(nanoseconds: now.nanoseconds + UInt64(seconds * 1e9))
        take(connection.tick(at: now))
    }
}

extension Result where Success == GATTClientResponse, Failure == GATTClientError {
    var failure: GATTClientError? { if case let .failure(e) = self { return e }; return nil }
    var success: GATTClientResponse? { if case let .success(s) = self { return s }; return nil }
}
