import ATT
import GATT
import Transport

/// Our GATT server engine on an accepted kernel L2CAP ATT socket, with one characteristic
/// readable only over an encrypted link. Before each request it asks the kernel for the
/// link's security (`BT_SECURITY`), so the kernel's SMP is what opens the value.
enum ProtectedGATTServer {
    static let service = BluetoothUUID(high: 0xA77E_0010_0000_1000, low: 0x8000_0080_5F9B_34FB)
    static let protected = BluetoothUUID(high: 0xA77E_0011_0000_1000, low: 0x8000_0080_5F9B_34FB)
    static let value: [UInt8] = Array("kernel-encrypted".utf8)

    static func database() throws -> AttributeDatabase {
        try AttributeDatabase(services: [
            .genericAttribute(),
            ServiceDefinition(service, characteristics: [
                CharacteristicDefinition(protected, properties: [.read], permissions: .readable(.encrypted), value: value),
            ]),
        ])
    }

    static func security(of socket: L2CAPATTSocket) -> LinkSecurity {
        let level = (try? socket.securityLevel()) ?? .low
        return LinkSecurity(encrypted: level >= .medium, authenticated: level >= .high, secureConnections: level >= .fips,
                            keySize: level >= .medium ? 16 : 0)
    }

    /// Serves until the link or the socket ends.
    static func serve(_ socket: L2CAPATTSocket) async {
        guard let database = try? database() else { return }
        var server = GATTServer(database: database)
        var output = GATTServerOutput()
        server.connect(1, security: security(of: socket), at: KernelGATTServer.now(), into: &output)
        do {
            for try await pdu in socket.datagrams {
                server.updateSecurity(security(of: socket), for: 1)
                server.receive(pdu[...], from: 1, at: KernelGATTServer.now(), into: &output)
                let actions = output.actions
                output = GATTServerOutput()
                for case .send(_, let bytes) in actions { try await socket.send(bytes) }
            }
        } catch {
            // The central went away.
        }
    }
}
