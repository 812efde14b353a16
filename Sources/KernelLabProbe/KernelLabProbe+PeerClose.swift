import Attune
import Glibc
import class Transport.KernelLEAdvertiser
import class Transport.L2CAPATTListener
import class Transport.L2CAPATTSocket
import struct Transport.KernelAdapter
import class EventLoop.KernelEventLoop

extension KernelLabProbe {
    /// The peer closes mid-procedure, through the public API: a
    /// `CentralManager(transport: .kernel("hci0"))` connects to a peer on hci1
    /// that serves discovery with our GATT server engine but, on the first
    /// Read Request, closes its socket without answering. The read must fail
    /// with `peripheralDisconnected` carrying the HCI reason, and the process
    /// must live on (it closes its own socket afterwards and keeps working).
    static func peerCloseScenario(log: ProbeLog) async {
        guard let lab = await LabPeripheral.start(log: log, scenario: "peer close") else { return }
        let (peripheral, listener) = (lab.peripheral, lab.listener)
        let peer = Task { () -> Bool in
            guard let socket = try? await listener.accept() else { return false }
            return await KernelGATTServer.serveUntilRead(socket)
        }

        let central = CentralManager(transport: .kernel("hci0"))
        let remote = central.peripheral(address: peripheral.address, type: .public)
        do {
            try await central.connect(remote, timeout: .seconds(15), discoverDatabase: false)
            let services = try await remote.discoverServices([KernelGATTServer.service])
            guard let service = services.first else {
                log.fail("peer close: discover", "no probe service")
                return
            }
            let characteristics = try await remote.discoverCharacteristics([KernelGATTServer.notifying], for: service)
            guard let characteristic = characteristics.first else {
                log.fail("peer close: discover", "no probe characteristic")
                return
            }
            log.pass("peer close: connect and discover", "\(characteristic.uuid)")
            let start = KernelEventLoop.now()
            // Experiment only (ATTUNE_PEER_CLOSE_CANCEL=milliseconds): the application gives
            // up on the link while the read is unanswered and the peer is gone.
            if let text = getenv("ATTUNE_PEER_CLOSE_CANCEL").map({ String(cString: $0) }), let delay = Int(text) {
                Task {
                    _ = await peer.value
                    try? await KernelEventLoop.shared().sleep(for: .milliseconds(delay))
                    ProbeLog().info("cancelling the connection with the read outstanding")
                    await central.cancelConnection(remote)
                }
            }
            do {
                let value = try await remote.readValue(for: characteristic)
                log.fail("peer close: read fails", "read \(hexString(value, empty: ""))")
            } catch .peripheralDisconnected(let reason) {
                reason == .hci(HCIStatus.remoteUserTerminatedConnection)
                    ? log.pass("peer close: read fails", "peripheralDisconnected(\(reason)) after \(ms(elapsed(since: start))) ms")
                    : log.fail("peer close: read fails", "peripheralDisconnected with reason \(reason)")
            } catch {
                log.fail("peer close: read fails", "\(error)")
            }
            let closedBeforeAnswer = await peer.value
            closedBeforeAnswer ? log.pass("peer close: peer saw the Read Request and closed")
                : log.fail("peer close: peer saw the Read Request and closed", "it did not")
            let state = await remote.state
            state == .disconnected ? log.pass("peer close: state", "\(state)") : log.fail("peer close: state", "\(state)")
        } catch {
            log.fail("peer close: connect and discover", "\(error)")
        }
        // The process survives the close of its own socket: the kernel is
        // still there to answer, and the event loop still runs.
        try? await KernelEventLoop.shared().sleep(for: .milliseconds(500))
        let after = (try? KernelAdapter.list())?.count ?? 0
        after == 2 ? log.pass("peer close: process survives", "\(after) adapters listed afterwards")
            : log.fail("peer close: process survives", "\(after) adapters")
        lab.close()
    }
}

extension KernelGATTServer {
    /// Serves like `serve(_:)` until the first Read Request, then closes the
    /// socket without answering it. Returns whether that happened.
    static func serveUntilRead(_ socket: L2CAPATTSocket) async -> Bool {
        guard let database = try? database() else { return false }
        var server = GATTServer(database: database)
        var output = GATTServerOutput()
        server.connect(1, at: now(), into: &output)
        do {
            for try await pdu in socket.datagrams {
                if pdu.first == 0x0A {
                    socket.close()
                    return true
                }
                server.receive(pdu[...], from: 1, at: now(), into: &output)
                let actions = output.actions
                output = GATTServerOutput()
                for case .send(_, let bytes) in actions { try await socket.send(bytes) }
            }
        } catch {}
        socket.close()
        return false
    }
}
