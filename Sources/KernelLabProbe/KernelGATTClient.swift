import ATT
import EventLoop
import GATT
import Transport

/// Our GATT client engine driven over a kernel L2CAP ATT socket: actions out
/// to the socket, PDUs from the socket back in. One task owns it.
struct KernelGATTClient {
    struct Closed: Error, CustomStringConvertible {
        var error: GATTClientError
        var description: String { "the client closed the bearer: \(error)" }
    }

    var connection: GATTLink
    let socket: L2CAPATTSocket
    var results: [GATTRequestID: Result<GATTClientResponse, GATTClientError>] = [:]
    var events: [GATTClientEvent] = []
    var securityRaises = 0

    init(socket: L2CAPATTSocket, configuration: GATTClientConfiguration) {
        self.socket = socket
        connection = GATTLink(configuration: configuration)
    }

    static func now() -> MonotonicTime { MonotonicTime(nanoseconds: KernelEventLoop.now()) }

    mutating func start() async throws {
        try await apply(connection.start(at: Self.now()))
    }

    /// Runs one procedure to completion over the socket.
    mutating func perform(_ command: GATTClientCommand) async throws -> Result<GATTClientResponse, GATTClientError> {
        let (id, actions) = connection.perform(command, at: Self.now())
        try await apply(actions)
        while results[id] == nil { try await pump() }
        return results.removeValue(forKey: id)!
    }

    /// Reads PDUs until an event matching `match` arrives.
    mutating func waitForEvent(_ match: (GATTClientEvent) -> Bool) async throws -> GATTClientEvent {
        while true {
            if let index = events.firstIndex(where: match) { return events.remove(at: index) }
            try await pump()
        }
    }

    private mutating func pump() async throws {
        let pdu = try await socket.receive(timeout: .seconds(10))
        try await apply(connection.receive(pdu[...], at: Self.now()))
    }

    private mutating func apply(_ actions: [GATTClientAction]) async throws {
        for action in actions {
            switch action {
            case .send(let bytes): try await socket.send(bytes)
            case .complete(let id, let result): results[id] = result
            case .deliver(let event): events.append(event)
            case .raiseSecurity:
                // The kernel holds our repeated request until encryption is up.
                try await socket.raiseSecurity(to: .medium, timeout: .seconds(15))
                connection.setLinkEncrypted(true)
                securityRaises += 1
            case .scheduleDeadline:
                // Procedures here are bounded by the socket's receive timeout.
                break
            case .close(let error): throw Closed(error: error)
            }
        }
    }
}
