import HCI

/// The sans-I/O HCI host alone: one ACL packet carrying one 20-byte ATT notification in,
/// one ``HostEvent/attributeData(handle:pdu:)`` out, into an output reused across calls.
/// The only allocation per packet should be the PDU array the event hands out.
enum HCIHostBenchmarks {
    static var all: [Benchmark] {
        [.throughput("hci.host.receive_notification") { n in
            var (host, now) = readyHost()
            var out = HostOutput()
            let payload: [UInt8] = [0x1B, 0x03, 0x00] + Array(repeating: 0xAB, count: 20)
            let frame = [UInt8(payload.count), 0, 0x04, 0x00] + payload
            let packet: [UInt8] = [0x02, 0x01, 0x20, UInt8(frame.count), 0] + frame
            for _ in 0..<n {
                now = now + .microseconds(1)
                out.removeAll()
                host.receive(packet, at: now, into: &out)
                blackHole(out.events.count)
            }
        }]
    }

    /// A host past initialisation with connection 0x0001 up.
    static func readyHost() -> (HCIHost, MonotonicTime) {
        var host = HCIHost(configuration: HostConfiguration(randomAddress: BluetoothAddress(0xC0, 1, 2, 3, 4, 5)))
        let now = MonotonicTime.seconds(1)
        var out = HostOutput()
        host.start(at: now, into: &out)
        for _ in 0..<16 where !host.isReady {
            guard let last = out.packets.last else { break }
            let command = out.bytes(of: last)
            let opcode = UInt16(command[command.startIndex + 1]) | UInt16(command[command.startIndex + 2]) << 8
            let parameters: [UInt8]
            switch opcode {
            case 0x1002: parameters = [0] + Array(repeating: 0, count: 64)
            case 0x1003, 0x2003: parameters = [0] + Array(repeating: 0, count: 8)
            case 0x2002: parameters = [0, 251, 0, 8]
            case 0x1009: parameters = [0, 6, 5, 4, 3, 2, 1]
            default: parameters = [0]
            }
            out.removeAll()
            host.receive([0x04, 0x0E, UInt8(3 + parameters.count), 1, UInt8(opcode & 0xFF), UInt8(opcode >> 8)] + parameters,
                         at: now, into: &out)
        }
        let body: [UInt8] = [0x01, 0x00, 0x01, 0x00, 0x00, 0x01, 1, 2, 3, 4, 5, 0xF0, 0x18, 0, 0, 0, 0xF4, 1, 0]
        host.receive([0x04, 0x3E, UInt8(body.count)] + body, at: now, into: &out)
        return (host, now)
    }
}
