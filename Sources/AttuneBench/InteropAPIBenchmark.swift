import Attune
import Foundation

/// `attune-bench --interop ... --api`: ATT Read latency and Write Without Response
/// throughput through the public API (CentralManager, Peripheral, our GATT client engine)
/// over the userland host.
enum InteropAPIBenchmark {
    /// The same figures through the public API: `Peripheral.readValue` and
    /// `writeValue(_:for:type: .withoutResponse)` on our GATT client engine, over the
    /// userland host. The peer is found by address; discovery happens while connecting.
    static func measure(endpoint: H4Endpoint, peer: BluetoothAddress, readHandle: UInt16, writeHandle: UInt16,
                        reads: Int, writes: Int, writeSize: Int, json: Bool) async throws {
        // The endpoint stays typed: the userland backend takes any H4 endpoint, the user
        // channel included.
        let transport = BluetoothTransport.h4(endpoint)
        let central = CentralManager(transport: transport)
        for await state in central.stateUpdates where state == .poweredOn || state == .unsupported { break }
        let peripheral = central.peripheral(address: peer, type: .random)
        try await central.connect(peripheral, timeout: .seconds(10))
        defer { Task { await central.cancelConnection(peripheral) } }
        var characteristics: [Characteristic] = []
        for service in try await peripheral.discoverServices() {
            characteristics += try await peripheral.discoverCharacteristics(nil, for: service)
        }
        guard let read = characteristics.first(where: { $0.valueHandle.rawValue == readHandle }),
              let write = characteristics.first(where: { $0.valueHandle.rawValue == writeHandle }) else {
            throw AttuneError.attributeNotFound("handles \(readHandle)/\(writeHandle)")
        }
        var samples: [Double] = []
        for _ in 0..<reads {
            let start = ContinuousClock.now
            _ = try await peripheral.readValue(for: read)
            let elapsed = ContinuousClock.now - start
            samples.append(Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12)
        }
        samples.sort()
        let median = samples[samples.count / 2]
        let p99 = samples[min(samples.count - 1, samples.count * 99 / 100)]
        let payload = [UInt8](repeating: 0x5A, count: writeSize)
        let start = ContinuousClock.now
        for _ in 0..<writes {
            await peripheral.readyToSendWriteWithoutResponse()
            try await peripheral.writeValue(payload, for: write, type: .withoutResponse)
        }
        _ = try await peripheral.readValue(for: write)
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let bytesPerSecond = Double(writes * writeSize) / seconds
        if json {
            print("{\"read_count\": \(reads), \"read_median_us\": \(median), \"read_p99_us\": \(p99), "
                  + "\"write_count\": \(writes), \"write_size\": \(writeSize), "
                  + "\"write_bytes_per_second\": \(bytesPerSecond), \"writes_per_second\": \(Double(writes) / seconds)}")
        } else {
            print("attune API Read round trip: median \(Int(median)) µs, p99 \(Int(p99)) µs over \(reads) reads")
            print("attune API Write Without Response: \(Int(bytesPerSecond)) B/s")
        }
    }
}
