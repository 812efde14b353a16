import ATT
import EventLoop
import GATT
import HCI
import Transport

extension KernelLabProbe {
    /// Our GATT client on hci0 against our GATT server on hci1, both engines
    /// over kernel L2CAP ATT sockets: MTU, discovery, read, long read, write,
    /// long write, write without response, notify and indicate.
    static func gattScenario(log: ProbeLog) async {
        guard let lab = await LabPeripheral.start(log: log, scenario: "gatt") else { return }
        defer { lab.close() }
        let (central, peripheral, listener) = (lab.central, lab.peripheral, lab.listener)
        async let accepted = listener.accept()
        let socket: L2CAPATTSocket
        let serverSocket: L2CAPATTSocket
        do {
            socket = try await L2CAPATTSocket.connect(to: peripheral.address, type: .public, from: central.address, timeout: .seconds(15))
            serverSocket = try await accepted
        } catch {
            log.fail("gatt: connect", "\(error)")
            listener.close()
            _ = try? await accepted
            return
        }
        let server = Task { await KernelGATTServer.serve(serverSocket) }

        // Rx MTU 23 keeps ATT_MTU at 23, so long values take Read Blob and
        // Prepare/Execute Write.
        var client = KernelGATTClient(socket: socket, configuration: GATTClientConfiguration(rxMTU: 23, exchangesMTUOnStart: false))
        do {
            try await client.start()
            try await check(log, "gatt: exchange MTU", client.perform(.exchangeMTU)) { response in
                if case .mtu(let mtu) = response, mtu == 23 { return "ATT_MTU \(mtu)" }
                return nil
            }
            let discovered = try await client.perform(.discoverDatabase)
            guard case .success(.database(let database)) = discovered,
                  let notifying = database.characteristic(uuid: KernelGATTServer.notifying),
                  let indicating = database.characteristic(uuid: KernelGATTServer.indicating) else {
                log.fail("gatt: discover database", "\(discovered)")
                return
            }
            log.pass("gatt: discover database", "\(database.services.count) services, \(database.characteristics.count) characteristics")
            let handle = notifying.valueHandle
            try await check(log, "gatt: read", client.perform(.readValue(handle))) {
                $0.value == KernelGATTServer.initialValue ? "\($0.value!.count) bytes" : nil
            }
            let long = (0..<100).map { UInt8($0) }
            try await check(log, "gatt: long write", client.perform(.writeLongValue(handle, long))) { _ in "100 bytes" }
            try await check(log, "gatt: long read", client.perform(.readLongValue(handle))) {
                $0.value == long ? "100 bytes back" : nil
            }
            try await check(log, "gatt: write", client.perform(.writeValue(handle, [1, 2, 3]))) { _ in "3 bytes" }
            try await check(log, "gatt: write without response", client.perform(.writeWithoutResponse(handle, [9, 9]))) { _ in "sent" }
            try await check(log, "gatt: read after writes", client.perform(.readValue(handle))) {
                $0.value == [9, 9] ? "09 09" : nil
            }
            try await check(log, "gatt: subscribe notify", client.perform(.subscribe(valueHandle: handle, .notify))) { _ in "CCCD 0001" }
            let notification = try await client.waitForEvent {
                if case .notification(handle, _) = $0 { return true }
                return false
            }
            if case .notification(_, let value) = notification, Array(value) == KernelGATTServer.notificationValue {
                log.pass("gatt: notification", hexString(Array(value), empty: ""))
            } else {
                log.fail("gatt: notification", "\(notification)")
            }
            let indicated = indicating.valueHandle
            try await check(log, "gatt: subscribe indicate", client.perform(.subscribe(valueHandle: indicated, .indicate))) { _ in "CCCD 0002" }
            let indication = try await client.waitForEvent {
                if case .indication(indicated, _) = $0 { return true }
                return false
            }
            if case .indication(_, let value) = indication, Array(value) == KernelGATTServer.indicationValue {
                log.pass("gatt: indication", hexString(Array(value), empty: ""))
            } else {
                log.fail("gatt: indication", "\(indication)")
            }
            // The confirmation went out with the indication's delivery; a
            // read after it proves the bearer is still in step.
            try await check(log, "gatt: read after indication", client.perform(.readValue(handle))) {
                $0.value == [9, 9] ? "in step" : nil
            }
            // Read latency through both engines, the figure issue 6 asks for.
            var samples: [Double] = []
            for _ in 0..<200 {
                let start = KernelEventLoop.now()
                guard case .success = try await client.perform(.readValue(handle)) else {
                    log.fail("gatt: read round trips", "a read failed")
                    break
                }
                samples.append(Double(KernelEventLoop.now() - start) / 1e6)
            }
            if samples.count == 200 {
                samples.sort()
                log.pass("gatt: read round trips", "200 reads, median \(ms(samples[100])) ms, p99 \(ms(samples[197])) ms, max \(ms(samples[199])) ms")
            }
        } catch {
            log.fail("gatt: link", "\(error)")
        }
        // The server side closes first; no request of ours is outstanding.
        serverSocket.close()
        _ = await server.value
        _ = try? await socket.receive(timeout: .seconds(10))
        socket.close()
    }

    /// Logs PASS when the procedure succeeded and `accept` returns a detail.
    static func check(_ log: ProbeLog, _ name: String, _ result: Result<GATTClientResponse, GATTClientError>,
                      _ accept: (GATTClientResponse) -> String?) {
        switch result {
        case .success(let response):
            if let detail = accept(response) { log.pass(name, detail) } else { log.fail(name, "unexpected \(response)") }
        case .failure(let error):
            log.fail(name, "\(error)")
        }
    }
}
