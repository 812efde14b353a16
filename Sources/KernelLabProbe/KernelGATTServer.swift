import ATT
import EventLoop
import GATT
import Transport

/// Our GATT server engine on an accepted kernel L2CAP ATT socket. When a
/// client subscribes it sends one notification or indication at once, so the
/// central can see both arrive.
enum KernelGATTServer {
    static let service = BluetoothUUID(high: 0xA77E_0001_0000_1000, low: 0x8000_0080_5F9B_34FB)
    /// Read, write, write without response, notify.
    static let notifying = BluetoothUUID(high: 0xA77E_0002_0000_1000, low: 0x8000_0080_5F9B_34FB)
    /// Read, indicate.
    static let indicating = BluetoothUUID(high: 0xA77E_0003_0000_1000, low: 0x8000_0080_5F9B_34FB)
    static let initialValue: [UInt8] = Array("attune".utf8)
    static let notificationValue: [UInt8] = [0xA1, 0xA2]
    static let indicationValue: [UInt8] = [0xB1, 0xB2, 0xB3]

    static func database() throws -> AttributeDatabase {
        try AttributeDatabase(services: [
            .genericAttribute(),
            ServiceDefinition(service, characteristics: [
                CharacteristicDefinition(notifying, properties: [.read, .write, .writeWithoutResponse, .notify], value: initialValue),
                CharacteristicDefinition(indicating, properties: [.read, .indicate], value: [0]),
            ]),
        ])
    }

    static func now() -> MonotonicTime { MonotonicTime(nanoseconds: KernelEventLoop.now()) }

    /// Serves until the link or the socket ends.
    static func serve(_ socket: L2CAPATTSocket) async {
        guard let database = try? database() else { return }
        var server = GATTServer(database: database)
        var output = GATTServerOutput()
        server.connect(1, at: now(), into: &output)
        do {
            try await flush(&output, server: &server, socket: socket)
            for try await pdu in socket.datagrams {
                server.receive(pdu[...], from: 1, at: now(), into: &output)
                try await flush(&output, server: &server, socket: socket)
            }
        } catch {
            // The central went away.
        }
    }

    private static func flush(_ output: inout GATTServerOutput, server: inout GATTServer, socket: L2CAPATTSocket) async throws {
        while !output.pdus.isEmpty || !output.events.isEmpty {
            let actions = output.actions
            output = GATTServerOutput()
            for action in actions {
                switch action {
                case .send(_, let bytes):
                    try await socket.send(bytes)
                case .event(.subscriptionChanged(let id, let characteristic, let configuration)):
                    if configuration.contains(.notification) {
                        _ = try? server.notify(notificationValue, characteristic: characteristic, to: [id], into: &output)
                    }
                    if configuration.contains(.indication) {
                        _ = try? server.indicate(indicationValue, characteristic: characteristic, to: [id], at: now(), into: &output)
                    }
                case .event:
                    break
                }
            }
        }
    }
}
