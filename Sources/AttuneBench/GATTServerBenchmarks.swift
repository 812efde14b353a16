import ATT
import GATT

/// GATT server throughput, sans-I/O, on one core: request bytes in, response bytes out
/// through a reused ``GATTServerOutput``, as a transport would drive it.
enum GATTServerBenchmarks {
    static var all: [Benchmark] {
        [
            .throughput("gatt.server.read_request") { n in
                var bench = Fixture(characteristics: 1)
                let request: [UInt8] = [0x0A] + le(bench.firstValue)
                bench.run(n) { _ in request[...] }
            },
            .throughput("gatt.server.read_by_type_discovery_50") { n in
                var bench = Fixture(characteristics: 50)
                // The requests of a full characteristic discovery at ATT_MTU 23, cycled.
                let requests = bench.discoveryRequests()
                bench.run(n) { i in requests[i % requests.count][...] }
            },
            .throughput("gatt.server.write_request") { n in
                var bench = Fixture(characteristics: 1)
                let request: [UInt8] = [0x12] + le(bench.firstValue) + (0..<20).map { UInt8($0) }
                bench.run(n) { _ in request[...] }
            },
        ]
    }

    static func le(_ h: AttributeHandle) -> [UInt8] { [UInt8(h.rawValue & 0xFF), UInt8(h.rawValue >> 8)] }

    /// A server with `characteristics` read/write characteristics of 20-byte values.
    struct Fixture {
        var server: GATTServer
        var out = GATTServerOutput()
        let firstValue: AttributeHandle

        init(characteristics: Int) {
            let db = try! AttributeDatabase(services: [
                ServiceDefinition(BluetoothUUID(0x180D), characteristics: (0..<characteristics).map { i in
                    CharacteristicDefinition(BluetoothUUID(UInt16(0x2A00 + i)), properties: [.read, .write],
                                             value: (0..<20).map { UInt8($0) })
                }),
            ])
            server = GATTServer(database: db)
            server.connect(1)
            firstValue = db.characteristics[0].valueHandle
        }

        func discoveryRequests() -> [[UInt8]] {
            var requests: [[UInt8]] = []
            var server = self.server
            var out = GATTServerOutput()
            var start: UInt16 = 1
            while true {
                let request: [UInt8] = [0x08] + GATTServerBenchmarks.le(AttributeHandle(start)) + [0xFF, 0xFF, 0x03, 0x28]
                requests.append(request)
                out.removeAll()
                server.receive(request[...], from: 1, at: .zero, into: &out)
                let response = Array(out.bytes(of: out.pdus[0]))
                guard response[0] == 0x09 else { break }
                let length = Int(response[1])
                let last = response.count - length
                start = (UInt16(response[last]) | UInt16(response[last + 1]) << 8) + 1
            }
            return requests
        }

        mutating func run(_ n: Int, _ request: (Int) -> ArraySlice<UInt8>) {
            var sent = 0
            for i in 0..<n {
                out.removeAll()
                server.receive(request(i), from: 1, at: .zero, into: &out)
                sent &+= out.buffer.count
            }
            blackHole(sent)
        }
    }
}
