import Foundation
import HCI
import struct HCI.BluetoothAddress
import Transport

/// `attune-bench --interop tcp:HOST:PORT --peer ADDRESS --read-handle H --write-handle H`
///
/// Measures the full userland stack against a live peer (Scripts/interop/bench.sh starts
/// a Bumble lab and runs this): ATT Read round-trip latency (median, p99) and Write
/// Without Response throughput, through our HCI host, H4 over TCP, the emulated controllers
/// and the peer's host. Raw ATT PDUs, so only the transport path is measured.
enum InteropBenchmark {
    struct Options {
        var endpoint: H4Endpoint
        var peer: BluetoothAddress
        var readHandle: UInt16
        var writeHandle: UInt16
        var reads = 500
        var writes = 2000
        var writeSize = 200
        var json = false
        /// Also measure through the public API (CentralManager, our GATT client engine).
        var api = false
    }

    static func parse(_ arguments: [String]) -> Options? {
        func value(_ name: String) -> String? {
            arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
        }
        guard let endpointText = value("--interop"), let endpoint = try? H4Endpoint(parsing: endpointText),
              let peer = value("--peer").flatMap(BluetoothAddress.init),
              let read = value("--read-handle").flatMap({ UInt16($0) }),
              let write = value("--write-handle").flatMap({ UInt16($0) }) else { return nil }
        var options = Options(endpoint: endpoint, peer: peer, readHandle: read, writeHandle: write)
        if let reads = value("--reads").flatMap({ Int($0) }) { options.reads = max(1, reads) }
        if let writes = value("--writes").flatMap({ Int($0) }) { options.writes = max(1, writes) }
        if let size = value("--write-size").flatMap({ Int($0) }) { options.writeSize = min(244, max(1, size)) }
        options.json = arguments.contains("--json")
        options.api = arguments.contains("--api")
        return options
    }

    static func run(_ arguments: [String]) async -> Int32 {
        guard let options = parse(arguments) else {
            FileHandle.standardError.write(Data("usage: attune-bench --interop tcp:HOST:PORT --peer ADDRESS --read-handle H --write-handle H [--reads N] [--writes N] [--write-size B] [--json]\n".utf8))
            return 2
        }
        do {
            if options.api {
                try await InteropAPIBenchmark.measure(
                    endpoint: options.endpoint, peer: options.peer, readHandle: options.readHandle,
                    writeHandle: options.writeHandle, reads: options.reads, writes: options.writes,
                    writeSize: options.writeSize, json: options.json)
            } else {
                try await measure(options)
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("attune-bench --interop: \(error)\n".utf8))
            return 1
        }
    }

    static func measure(_ options: Options) async throws {
        let host = try UserlandHost(endpoint: options.endpoint, configuration: HostConfiguration(
            randomAddress: BluetoothAddress(0xC0, 0xA7, 0x7E, 0x00, 0x00, 0x01)))
        defer { host.close() }
        var events = host.events.makeAsyncIterator()
        _ = try await host.start()
        guard case .connected(let connection) = try await host.perform(.connect(
            peer: options.peer, peerAddressType: 0x01, parameters: ConnectionParameters(), timeout: .seconds(10))) else {
            throw HostError.connectionFailed(.noControllerStatus)
        }
        let handle = connection.handle
        func nextPDU() async throws -> [UInt8] {
            while let event = await events.next() {
                if case .attributeData(handle, let pdu) = event { return pdu }
            }
            throw HostError.transportClosed("event stream ended")
        }

        try await host.sendATT([0x02, 0xF7, 0x00], on: handle)
        _ = try await nextPDU()

        let read: [UInt8] = [0x0A, UInt8(options.readHandle & 0xFF), UInt8(options.readHandle >> 8)]
        var samples: [Double] = []
        samples.reserveCapacity(options.reads)
        for _ in 0..<options.reads {
            let start = ContinuousClock.now
            try await host.sendATT(read, on: handle)
            let response = try await nextPDU()
            samples.append(Double((ContinuousClock.now - start).components.attoseconds) / 1e12
                           + Double((ContinuousClock.now - start).components.seconds) * 1e6)
            guard response.first == 0x0B else { throw HostError.invalidRequest("read answered with \(response)") }
        }
        samples.sort()
        let median = samples[samples.count / 2]
        let p99 = samples[min(samples.count - 1, samples.count * 99 / 100)]

        let write: [UInt8] = [0x52, UInt8(options.writeHandle & 0xFF), UInt8(options.writeHandle >> 8)]
            + Array(repeating: 0x5A, count: options.writeSize)
        let barrier: [UInt8] = [0x0A, UInt8(options.writeHandle & 0xFF), UInt8(options.writeHandle >> 8)]
        let start = ContinuousClock.now
        for _ in 0..<options.writes {
            await host.sendReady(on: handle)
            try await host.sendATT(write, on: handle)
        }
        // ATT is sequential: the read's answer means every write before it was handled.
        try await host.sendATT(barrier, on: handle)
        _ = try await nextPDU()
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let bytesPerSecond = Double(options.writes * options.writeSize) / seconds
        _ = try? await host.perform(.disconnect(handle: handle, reason: 0x13))

        if options.json {
            print("{\"read_count\": \(options.reads), \"read_median_us\": \(median), \"read_p99_us\": \(p99), "
                  + "\"write_count\": \(options.writes), \"write_size\": \(options.writeSize), "
                  + "\"write_bytes_per_second\": \(bytesPerSecond), \"writes_per_second\": \(Double(options.writes) / seconds)}")
        } else {
            print("attune ATT Read round trip: median \(Int(median)) µs, p99 \(Int(p99)) µs over \(options.reads) reads")
            print("attune Write Without Response: \(Int(bytesPerSecond)) B/s (\(Int(Double(options.writes) / seconds)) writes/s of \(options.writeSize) B)")
        }
    }

}
