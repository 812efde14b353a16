import HCI

/// The per-packet pseudo-headers of the two Bluetooth pcap link types.
extension CaptureReader {
    /// Builds a record from `included` bytes at buffer offset `dataOffset`.
    @inline(__always)
    func linkTypeRecord(_ linkType: PcapLinkType, dataOffset: Int, included: Int, original: Int,
                        timestamp: Int64, recordStart: Int64) throws(CaptureError) -> CaptureRecord {
        switch linkType {
        case .bluetoothHCIH4WithPHDR:
            // 4-byte big-endian direction (bit 0: 0 sent, 1 received), then the H4 packet.
            guard included >= 5 else { throw corrupt("H4 record of \(included) bytes is shorter than its 5-byte header", at: recordStart) }
            let direction: CaptureDirection = buffer.uint32BE(dataOffset) & 1 == 0 ? .sent : .received
            return CaptureRecord(kind: h4Kind(buffer.byte(dataOffset &+ 4)), direction: direction, controller: 0,
                                 timestamp: timestamp, payload: buffer.slice(dataOffset &+ 5, included &- 5),
                                 originalLength: max(0, original &- 5), index: recordCount, byteOffset: recordStart)
        case .bluetoothLinuxMonitor:
            // Big-endian adapter index and monitor opcode, then the monitor payload.
            guard included >= 4 else { throw corrupt("monitor record of \(included) bytes is shorter than its 4-byte header", at: recordStart) }
            let controller = buffer.uint16BE(dataOffset)
            let opcode = buffer.uint16BE(dataOffset &+ 2)
            let kind: CaptureRecord.Kind
            let direction: CaptureDirection
            if let (type, dir) = MonitorOpcode.packet(for: opcode) {
                kind = .hci(type)
                direction = dir
            } else {
                kind = .monitor(opcode: opcode)
                direction = .received
            }
            return CaptureRecord(kind: kind, direction: direction, controller: controller, timestamp: timestamp,
                                 payload: buffer.slice(dataOffset &+ 4, included &- 4),
                                 originalLength: max(0, original &- 4), index: recordCount, byteOffset: recordStart)
        }
    }
}
