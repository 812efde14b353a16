import Attune
import EventLoop
import Glibc
import HCI
import Transport

/// Runs inside the kernel lab VM with btvirt's hci0 and hci1:
/// `KernelLabProbe state` prints the manager state; `KernelLabProbe att
/// [round-trips]` runs our central on hci0 against our peripheral on hci1
/// over kernel L2CAP ATT sockets. Exits 0 when every check passed.
@main
struct KernelLabProbe {
    static func main() async {
        let arguments = CommandLine.arguments.dropFirst()
        let log = ProbeLog()
        switch arguments.first {
        case "state":
            // The state a manager on hci0 reports (what `attune state` prints).
            let status = CentralManager(transport: .kernel("hci0")).status
            print("state: \(status)")
            for adapter in (try? KernelAdapter.list()) ?? [] { print("adapter: \(adapter)") }
            exit(status.state == .poweredOn ? 0 : 1)
        case "bluez-peer":
            await bluezPeerScenario(log: log)
        case "gatt":
            await gattScenario(log: log)
        case "calibrate":
            calibrate(log: log)
        case "bench":
            let reads = arguments.dropFirst().first.flatMap { Int($0) } ?? 200
            let tool = arguments.dropFirst(2).first ?? ".lab/bluez/btgatt-client"
            await benchScenario(log: log, reads: reads, bluezClient: tool)
        case "peer-close":
            await peerCloseScenario(log: log)
        case "peer-left":
            await peerLeftScenario(log: log)
        case "coexist":
            await coexistence(log: log)
        case "adapter-state":
            await adapterStateScenario(log: log)
        case "adapter-reset":
            await adapterResetScenario(log: log)
        case "restore-peripheral":
            await restorePeripheralScenario(log: log)
        case "restore-a":
            await restoreFirstProcess(log: log, store: arguments.dropFirst().first ?? "/tmp/attune-restore")
        case "restore-b":
            await restoreSecondProcess(log: log, store: arguments.dropFirst().first ?? "/tmp/attune-restore")
        case "pairing":
            await pairingScenario(log: log)
        case "att":
            let roundTrips = arguments.dropFirst().first.flatMap { Int($0) } ?? 200
            await attScenario(log: log, roundTrips: roundTrips)
        default:
            print("usage: KernelLabProbe state | att [round-trips] | gatt | bluez-peer | peer-close | peer-left | bench [reads] [btgatt-client] | calibrate | coexist | adapter-state | adapter-reset | restore-peripheral | restore-a DIR | restore-b DIR | pairing")
            exit(2)
        }
        print(log.failures == 0 ? "ALL PASSED" : "\(log.failures) FAILED")
        exit(log.failures == 0 ? 0 : 1)
    }

    static func elapsed(since start: UInt64) -> Double {
        Double(KernelEventLoop.now() - start) / 1e6
    }

    static func attScenario(log: ProbeLog, roundTrips: Int) async {
        let adapters: [KernelAdapter]
        do {
            adapters = try KernelAdapter.list()
        } catch {
            log.fail("list adapters", "\(error)")
            return
        }
        guard let central = adapters.first(where: { $0.index == 0 }), let peripheral = adapters.first(where: { $0.index == 1 }) else {
            log.fail("list adapters", "need hci0 and hci1, found \(adapters)")
            return
        }
        log.pass("list adapters", adapters.map(\.description).joined(separator: ", "))
        // The state a manager on hci0, our central's adapter, reports.
        let status = CentralManager(transport: .kernel("hci0")).status
        status.state == .poweredOn ? log.pass("manager state", "\(status)") : log.fail("manager state", "\(status)")
        log.info("bluetoothd running: \(BluetoothDaemonPresence.isRunning())")

        // Peripheral: listen on hci1's ATT channel and advertise connectably.
        let listener: L2CAPATTListener
        let advertiser: KernelLEAdvertiser
        do {
            listener = try L2CAPATTListener(address: peripheral.address)
            advertiser = try KernelLEAdvertiser(adapterIndex: peripheral.index)
            // Flags (LE General Discoverable, BR/EDR not supported) and a complete local name.
            let name = Array("attune-probe".utf8)
            try await advertiser.start(data: [0x02, 0x01, 0x06, UInt8(name.count + 1), 0x09] + name,
                                       scanResponse: [0x03, 0x19, 0x00, 0x00])
            log.pass("advertise on hci1")
        } catch {
            log.fail("advertise on hci1", "\(error)")
            return
        }

        await scan(log: log, adapter: central, looking: peripheral.address)

        let disconnections: HCIDisconnectionMonitor?
        do {
            disconnections = try HCIDisconnectionMonitor(adapterIndex: central.index)
        } catch {
            disconnections = nil
            log.fail("disconnection monitor", "\(error)")
        }

        // Connect and accept at the same time.
        let start = KernelEventLoop.now()
        async let accepted = listener.accept()
        let client: L2CAPATTSocket
        let server: L2CAPATTSocket
        do {
            client = try await L2CAPATTSocket.connect(to: peripheral.address, type: .public, from: central.address, timeout: .seconds(15))
            server = try await accepted
            log.pass("connect hci0 → hci1", "\(ms(elapsed(since: start))) ms")
        } catch {
            log.fail("connect hci0 → hci1", "\(error)")
            listener.close()
            _ = try? await accepted
            return
        }
        if server.peer.address == central.address && server.peer.addressType == .public {
            log.pass("accepted peer address", "\(server.peer.address) \(server.peer.addressType)")
        } else {
            log.fail("accepted peer address", "got \(server.peer.address) \(server.peer.addressType), expected \(central.address) public")
        }
        if client.peer.address == peripheral.address {
            log.pass("central peer address", "\(client.peer.address)")
        } else {
            log.fail("central peer address", "got \(client.peer.address)")
        }
        do {
            let mtu = try client.mtu()
            mtu.receive >= 23 && mtu.send >= 23 ? log.pass("socket MTU", "receive \(mtu.receive) send \(mtu.send)")
                : log.fail("socket MTU", "receive \(mtu.receive) send \(mtu.send)")
            let level = try client.securityLevel()
            try client.setSecurityLevel(.low)
            log.pass("BT_SECURITY get/set", "level \(level), set low")
        } catch {
            log.fail("socket options", "\(error)")
        }
        // Just Works pairing needs someone to answer the kernel's user
        // confirmation; with no bluetoothd, our agent does.
        do {
            let agent = try KernelPairingAgent()
            defer { agent.close() }
            let start = KernelEventLoop.now()
            try await client.raiseSecurity(to: .medium, timeout: .seconds(15))
            let central = try client.securityLevel()
            let peripheral = try server.securityLevel()
            central >= .medium && peripheral >= .medium
                ? log.pass("raise security", "central \(central), peripheral \(peripheral) after \(ms(elapsed(since: start))) ms")
                : log.fail("raise security", "central \(central), peripheral \(peripheral)")
        } catch {
            log.fail("raise security", "\(error)")
        }

        let responder = Task { await ProbeResponder.serve(server) }

        // Exchange MTU: 02 0002 (512) → 03 0502 (517).
        do {
            try await client.send([0x02, 0x00, 0x02])
            let answer = try await client.receive()
            answer == [0x03, 0x05, 0x02] ? log.pass("exchange MTU", hexString(answer, empty: "")) : log.fail("exchange MTU", "got \(hexString(answer, empty: ""))")
        } catch {
            log.fail("exchange MTU", "\(error)")
        }

        await measure(log: log, client: client, roundTrips: roundTrips)
        // With the default buffer (about 208 KiB) a flood from btvirt, which
        // paces nothing, overflows under TCG and the kernel drops some.
        await notificationBurst(log: log, name: "notification burst", client: client, count: 1000, valueSize: 20, requireAll: false)
        do {
            let before = try client.receiveBufferSize()
            try client.setReceiveBufferSize(4 << 20)
            log.pass("receive buffer", "\(before) → \(try client.receiveBufferSize()) bytes")
        } catch {
            log.fail("receive buffer", "\(error)")
        }
        await notificationBurst(log: log, name: "notification burst, large buffer", client: client, count: 1000, valueSize: 20,
                                requireAll: true)

        await timeoutCheck(log: log, from: central.address)
        await cancellationCheck(log: log, from: central.address)

        // The peer closes: the central's pending receive fails with a clear
        // error. No request is outstanding, which keeps us off the kernel bug
        // that corrupts memory when the central later closes.
        let closeStart = KernelEventLoop.now()
        server.close()
        responder.cancel()
        _ = await responder.value
        do {
            let pdu = try await client.receive()
            log.fail("peer closes", "received \(hexString(pdu, empty: "")) instead of an error")
        } catch let error as KernelTransportError {
            let reason = error.disconnectReason.map { ", errno suggests reason \($0)" } ?? ""
            [.connectionReset, .connectionAborted, .timedOut, .notConnected].contains(error.kind)
                ? log.pass("peer closes", "\(error)\(reason) after \(ms(elapsed(since: closeStart))) ms")
                : log.fail("peer closes", "\(error)")
            // The peripheral's kernel ends an idle link as Remote User Terminated Connection.
            let exact = await disconnections?.reason(for: client)
            exact == HCIStatus.remoteUserTerminatedConnection
                ? log.pass("disconnect reason", "\(exact!) from Disconnection Complete on handle \(client.connectionHandle.map { "\($0)" } ?? "?")")
                : log.fail("disconnect reason", "got \(exact.map { "\($0)" } ?? "nothing") for handle \(client.connectionHandle.map { "\($0)" } ?? "?")")
        } catch {
            log.fail("peer closes", "\(error)")
        }
        client.close()
        listener.close()
        advertiser.close()
        disconnections?.close()
    }

    /// With bluetoothd running on the same kernel: what our sockets meet.
    /// Results are reported as facts (INFO), except the detection itself.
    static func coexistence(log: ProbeLog) async {
        BluetoothDaemonPresence.isRunning() ? log.pass("bluetoothd detected") : log.fail("bluetoothd detected", "not running?")
        guard let adapters = try? KernelAdapter.list(), let peripheral = adapters.first(where: { $0.index == 1 }) else {
            log.fail("list adapters", "no hci1")
            return
        }
        do {
            let listener = try L2CAPATTListener(address: peripheral.address)
            listener.close()
            log.info("ATT listener on hci1: bound")
        } catch {
            log.info("ATT listener on hci1: \(error)")
        }
        do {
            let scanner = try KernelLEScanner(adapterIndex: 0)
            defer { scanner.close() }
            try await scanner.start()
            try await scanner.stop()
            log.info("raw LE scan on hci0: started and stopped")
        } catch {
            log.info("raw LE scan on hci0: \(error)")
        }
        do {
            let advertiser = try KernelLEAdvertiser(adapterIndex: 1)
            defer { advertiser.close() }
            try await advertiser.start(data: [0x02, 0x01, 0x06])
            try await advertiser.setEnabled(false)
            log.info("raw advertising on hci1: started and stopped")
        } catch {
            log.info("raw advertising on hci1: \(error)")
        }
    }

    static func scan(log: ProbeLog, adapter: KernelAdapter, looking target: BluetoothAddress) async {
        do {
            let scanner = try KernelLEScanner(adapterIndex: adapter.index)
            defer { scanner.close() }
            try await scanner.start()
            let start = KernelEventLoop.now()
            var found: LEAdvertisingReport?
            while found == nil, elapsed(since: start) < 10_000 {
                let reports = try await scanner.nextReports(timeout: .seconds(10))
                found = reports.first { $0.address == target }
            }
            try await scanner.stop()
            if let found {
                log.pass("scan on hci0", "\(found.address) \(found.addressType) event \(found.eventType) rssi \(found.rssi) data \(hexString(Array(found.data), empty: ""))")
            } else {
                log.fail("scan on hci0", "no report from \(target)")
            }
        } catch {
            log.fail("scan on hci0", "\(error)")
        }
    }

    static func measure(log: ProbeLog, client: L2CAPATTSocket, roundTrips: Int) async {
        var samples: [Double] = []
        samples.reserveCapacity(roundTrips)
        do {
            for index in 0..<roundTrips {
                let handle = UInt16(1 + index % 0xFFFE)
                let request: [UInt8] = [0x0A, UInt8(handle & 0xFF), UInt8(handle >> 8)]
                let start = KernelEventLoop.now()
                try await client.send(request)
                let answer = try await client.receive()
                samples.append(Double(KernelEventLoop.now() - start) / 1e6)
                guard answer == [0x0B, request[1], request[2], 0x42] else {
                    log.fail("read round trips", "request \(index) got \(hexString(answer, empty: ""))")
                    return
                }
            }
        } catch {
            log.fail("read round trips", "\(error)")
            return
        }
        guard !samples.isEmpty else { return }
        samples.sort()
        let median = samples[samples.count / 2]
        let p99 = samples[min(samples.count - 1, Int((Double(samples.count) * 0.99).rounded(.up)) - 1)]
        log.pass("read round trips", "\(samples.count) reads, median \(ms(median)) ms, p99 \(ms(p99)) ms, max \(ms(samples.last!)) ms")
    }

    /// Asks the peripheral for `count` notifications and times their arrival.
    /// Notifications are unacknowledged: when the receiving socket's buffer
    /// is full the kernel drops them, so the count received is reported, and
    /// the burst ends when none arrives for 500 ms.
    static func notificationBurst(log: ProbeLog, name: String, client: L2CAPATTSocket, count: Int, valueSize: UInt8,
                                  requireAll: Bool) async {
        let handle = ProbeResponder.burstHandle
        let start = KernelEventLoop.now()
        var last = start
        var received = 0
        do {
            try await client.send([0x52, UInt8(handle & 0xFF), UInt8(handle >> 8), UInt8(count & 0xFF), UInt8(count >> 8), valueSize])
            while received < count {
                let pdu: [UInt8]
                do {
                    pdu = try await client.receive(timeout: .milliseconds(500))
                } catch let error as KernelTransportError where error.kind == .timedOut {
                    break
                }
                guard pdu.first == 0x1B, pdu.count == 3 + Int(valueSize) else {
                    log.fail(name, "unexpected \(hexString(pdu, empty: "")) after \(received)")
                    return
                }
                received += 1
                last = KernelEventLoop.now()
            }
        } catch {
            log.fail(name, "\(error)")
            return
        }
        guard received > 0, received == count || !requireAll else {
            log.fail(name, "\(received) of \(count) notifications arrived")
            return
        }
        let seconds = Double(last - start) / 1e9
        let perSecond = Double(received) / seconds
        log.pass(name, "\(received) of \(count) × \(valueSize) B in \(ms(seconds * 1000)) ms: \(Int(perSecond)) notifications/s, \(Int(perSecond * Double(valueSize) / 1024)) KiB/s of values")
    }

    /// Nothing advertises at this address, so the kernel never even starts
    /// the connection: our deadline has to end it.
    static let silentAddress = BluetoothAddress("00:AA:01:99:99:99")!

    static func timeoutCheck(log: ProbeLog, from local: BluetoothAddress) async {
        let start = KernelEventLoop.now()
        do {
            let socket = try await L2CAPATTSocket.connect(to: silentAddress, type: .public, from: local, timeout: .seconds(2))
            socket.close()
            log.fail("connect timeout", "connected to a silent address")
        } catch let error as KernelTransportError where error.kind == .timedOut {
            let elapsed = elapsed(since: start)
            elapsed >= 1900 && elapsed < 3000 ? log.pass("connect timeout", "\(error) after \(ms(elapsed)) ms (asked 2000)")
                : log.fail("connect timeout", "after \(ms(elapsed)) ms (asked 2000)")
        } catch {
            log.fail("connect timeout", "\(error)")
        }
    }

    static func cancellationCheck(log: ProbeLog, from local: BluetoothAddress) async {
        let start = KernelEventLoop.now()
        let attempt = Task {
            try await L2CAPATTSocket.connect(to: silentAddress, type: .public, from: local, timeout: .seconds(20))
        }
        try? await KernelEventLoop.shared().sleep(for: .milliseconds(300))
        attempt.cancel()
        do {
            let socket = try await attempt.value
            socket.close()
            log.fail("connect cancel", "connected to a silent address")
        } catch is CancellationError {
            let elapsed = elapsed(since: start)
            elapsed < 1500 ? log.pass("connect cancel", "cancelled after \(ms(elapsed)) ms")
                : log.fail("connect cancel", "took \(ms(elapsed)) ms")
        } catch {
            log.fail("connect cancel", "\(error)")
        }
    }

    /// Milliseconds with two decimals, without Foundation.
    static func ms(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let fraction = hundredths % 100
        return "\(hundredths / 100)." + (fraction < 10 ? "0" : "") + "\(fraction)"
    }

}
