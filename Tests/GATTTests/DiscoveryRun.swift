import ATT
@testable import GATT

/// Discover Database on a fresh client (no MTU exchange) against a test's server, until
/// it completes or the client stops asking: the driver the discovery edge and flood
/// tests share. Before each response the injected clock moves by `step`, and a deadline
/// it passes is ticked first.
struct DiscoveryRun {
    var result: Result<GATTClientResponse, GATTClientError>?
    var connection: GATTLink
    /// Responses the server gave.
    var responses = 0
    /// The last request the client sent, in hex.
    var lastSent = ""

    init(configuration: GATTClientConfiguration = GATTClientConfiguration(), step: Duration = .zero,
         answer: ([UInt8]) -> [UInt8]) {
        var c = configuration
        c.exchangesMTUOnStart = false
        connection = GATTLink(configuration: c)
        var now = MonotonicTime.zero
        let (id, first) = connection.perform(.discoverDatabase, at: now)
        var actions = first
        while result == nil {
            var toSend: [UInt8]?
            for action in actions {
                switch action {
                case let .send(pdu): toSend = pdu
                case let .complete(done, r) where done == id: result = r
                default: break
                }
            }
            guard result == nil, let request = toSend else { break }
            now = now + step
            if let deadline = connection.deadline, deadline <= now {
                actions = connection.tick(at: now)
                if !actions.isEmpty { continue }
            }
            responses += 1
            lastSent = hexString(request)
            actions = connection.receive(answer(request)[...], at: now)
        }
    }
}
