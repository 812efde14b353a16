import ATT
import EventLoop
import GATT
import Glibc
import HCI
import Transport

extension KernelLabProbe {
    /// ATT Read latency, ours against BlueZ's, in one VM run and against one
    /// server: our GATT server engine on hci1 answers first our GATT client
    /// (over our kernel socket, timed around each `readValue`), then BlueZ's
    /// btgatt-client on its own link (driven over pipes, timed from here
    /// around each `read-value` command up to its printed "Read value").
    /// btgatt-client's figure also holds two pipe hops and two process
    /// wake-ups; a command it refuses without touching the link ("read-value
    /// 0") measures that overhead, printed beside it.
    static func benchScenario(log: ProbeLog, reads: Int, bluezClient: String) async {
        guard let lab = await LabPeripheral.start(log: log, scenario: "bench") else { return }
        defer { lab.close() }
        let (central, peripheral, listener, advertiser) = (lab.central, lab.peripheral, lab.listener, lab.advertiser)
        guard let handle = await benchOurClient(log: log, reads: reads, listener: listener, central: central, peripheral: peripheral) else {
            return
        }
        // Legacy advertising stopped when the first link came up.
        do {
            try await advertiser.setEnabled(true)
        } catch {
            log.fail("bench: advertise again", "\(error)")
            return
        }
        async let accepted = listener.accept()
        let client = Task { await runBlueZClient(bluezClient, peer: peripheral.address, handle: handle, reads: reads) }
        // A btgatt-client that never connects must not leave accept waiting.
        Task {
            if case .failure = await client.value { listener.close() }
        }
        guard let serverSocket = try? await accepted else {
            log.fail("bench: btgatt-client", "no connection accepted; \(await client.value)")
            return
        }
        let server = Task { await KernelGATTServer.serve(serverSocket) }
        switch await client.value {
        case .success(let figures):
            log.pass("bench: btgatt-client read", "\(figures.reads.count) reads, \(summary(figures.reads))")
            log.pass("bench: btgatt-client pipe overhead", "\(figures.overhead.count) refused commands, \(summary(figures.overhead))")
        case .failure(let failure):
            log.fail("bench: btgatt-client read", failure.text)
        }
        // btgatt-client closed its socket with nothing outstanding; the link
        // drops and the server ends.
        _ = await server.value
    }

    /// Our GATT client against our server: returns the value handle it read.
    private static func benchOurClient(log: ProbeLog, reads: Int, listener: L2CAPATTListener,
                                       central: KernelAdapter, peripheral: KernelAdapter) async -> UInt16? {
        async let accepted = listener.accept()
        let socket: L2CAPATTSocket
        let serverSocket: L2CAPATTSocket
        do {
            socket = try await L2CAPATTSocket.connect(to: peripheral.address, type: .public, from: central.address, timeout: .seconds(15))
            serverSocket = try await accepted
        } catch {
            log.fail("bench: connect", "\(error)")
            listener.close()
            _ = try? await accepted
            return nil
        }
        let server = Task { await KernelGATTServer.serve(serverSocket) }
        defer { socket.close() }
        var client = KernelGATTClient(socket: socket, configuration: GATTClientConfiguration(rxMTU: 23, exchangesMTUOnStart: false))
        do {
            try await client.start()
            guard case .success(.database(let database)) = try await client.perform(.discoverDatabase),
                  let characteristic = database.characteristic(uuid: KernelGATTServer.notifying) else {
                log.fail("bench: discover", "no probe characteristic")
                return nil
            }
            let handle = characteristic.valueHandle
            var samples: [Double] = []
            for index in 0..<(reads + warmUp) {
                let start = KernelEventLoop.now()
                let result = try await client.perform(.readValue(handle))
                guard case .success(let response) = result, response.value == KernelGATTServer.initialValue else {
                    log.fail("bench: attune read", "read \(index): \(result)")
                    return nil
                }
                if index >= warmUp { samples.append(Double(KernelEventLoop.now() - start) / 1e6) }
            }
            log.pass("bench: attune read", "\(samples.count) reads, \(summary(samples))")
            socket.close()
            // Closing our side with nothing outstanding lets the link drop;
            // the next client must get a link of its own.
            _ = await server.value
            return handle.rawValue
        } catch {
            log.fail("bench: attune read", "\(error)")
            return nil
        }
    }

    static let warmUp = 10

    struct ToolFailure: Error { var text: String }

    /// Runs btgatt-client on a thread of its own and times its reads.
    private static func runBlueZClient(_ path: String, peer: BluetoothAddress, handle: UInt16, reads: Int) async
        -> Result<(reads: [Double], overhead: [Double]), ToolFailure> {
        await withCheckedContinuation { continuation in
            var thread = pthread_t()
            let box = Unmanaged.passRetained(BlueZClientRun(path: path, peer: "\(peer)", handle: handle, reads: reads) {
                continuation.resume(returning: $0)
            }).toOpaque()
            let created = pthread_create(&thread, nil, { argument in
                let run = Unmanaged<BlueZClientRun>.fromOpaque(argument!).takeRetainedValue()
                run.done(run.measure())
                return nil
            }, box)
            if created == 0 {
                pthread_detach(thread)
            } else {
                let run = Unmanaged<BlueZClientRun>.fromOpaque(box).takeRetainedValue()
                run.done(.failure(ToolFailure(text: "pthread_create failed")))
            }
        }
    }

    /// "median a ms, p99 b ms, max c ms" of samples in milliseconds.
    static func summary(_ values: [Double]) -> String {
        guard !values.isEmpty else { return "no samples" }
        let sorted = values.sorted()
        let p99 = sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.99).rounded(.up)) - 1)]
        return "median \(ms(sorted[sorted.count / 2])) ms, p99 \(ms(p99)) ms, max \(ms(sorted.last!)) ms"
    }
}

/// One btgatt-client session: connect, wait for its discovery, read `handle`
/// `reads` times in lockstep, then as many refused commands.
private final class BlueZClientRun {
    let path: String, peer: String, handle: UInt16, reads: Int
    let done: (Result<(reads: [Double], overhead: [Double]), KernelLabProbe.ToolFailure>) -> Void

    init(path: String, peer: String, handle: UInt16, reads: Int,
         done: @escaping (Result<(reads: [Double], overhead: [Double]), KernelLabProbe.ToolFailure>) -> Void) {
        self.path = path
        self.peer = peer
        self.handle = handle
        self.reads = reads
        self.done = done
    }

    func measure() -> Result<(reads: [Double], overhead: [Double]), KernelLabProbe.ToolFailure> {
        // ATT_MTU 23 as our client asks; security low as ours runs.
        guard let tool = InteractiveTool([path, "-i", "hci0", "-d", peer, "-t", "public", "-m", "23"]) else {
            return .failure(.init(text: "cannot start \(path)"))
        }
        defer { _ = tool.finish() }
        guard tool.read(until: "GATT discovery procedures complete", seconds: 30) != nil else {
            return .failure(.init(text: "btgatt-client did not finish discovery"))
        }
        let command = "read-value 0x" + String(handle, radix: 16)
        let expected = hexString(KernelGATTServer.initialValue, separator: " ", empty: "")
        var samples: [Double] = []
        for index in 0..<(reads + KernelLabProbe.warmUp) {
            let start = KernelEventLoop.now()
            guard tool.send(command), let line = tool.read(until: "Read value", seconds: 10) else {
                return .failure(.init(text: "read \(index): no answer"))
            }
            guard line.contains(expected) else { return .failure(.init(text: "read \(index): \(line)")) }
            if index >= KernelLabProbe.warmUp { samples.append(Double(KernelEventLoop.now() - start) / 1e6) }
        }
        var overhead: [Double] = []
        for index in 0..<reads {
            let start = KernelEventLoop.now()
            guard tool.send("read-value 0"), tool.read(until: "Invalid value handle", seconds: 10) != nil else {
                return .failure(.init(text: "refused command \(index): no answer"))
            }
            overhead.append(Double(KernelEventLoop.now() - start) / 1e6)
        }
        return .success((samples, overhead))
    }
}
