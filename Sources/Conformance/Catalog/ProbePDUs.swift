import ATT
import BluetoothCore

/// Raw requests the probes send, built octet by octet: several are PDUs no codec would
/// build (a truncated one, a range starting at 0x0000).
enum ProbePDUs {
    static func le(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }

    static func read(_ handle: UInt16) -> [UInt8] { [ATTOpcode.readRequest.rawValue] + le(handle) }

    static func readBlob(_ handle: AttributeHandle, offset: Int) -> [UInt8] {
        [ATTOpcode.readBlobRequest.rawValue] + le(handle.rawValue) + le(UInt16(truncatingIfNeeded: offset))
    }

    static func prepareWrite(_ handle: AttributeHandle, offset: Int, _ part: ArraySlice<UInt8>) -> [UInt8] {
        [ATTOpcode.prepareWriteRequest.rawValue] + le(handle.rawValue) + le(UInt16(truncatingIfNeeded: offset)) + Array(part)
    }

    static func executeWrite(commit: Bool) -> [UInt8] { [ATTOpcode.executeWriteRequest.rawValue, commit ? 0x01 : 0x00] }

    /// A long write of `value` (Vol 3 Part G §4.9.4): Prepare Write Requests of at most
    /// ATT_MTU − 5 octets each, then an Execute Write Request that writes them.
    static func longWrite(_ handle: AttributeHandle, _ value: [UInt8], mtu: Int) -> [[UInt8]] {
        let size = max(1, mtu - 5)
        var parts: [[UInt8]] = stride(from: 0, to: value.count, by: size).map {
            prepareWrite(handle, offset: $0, value[$0..<min(value.count, $0 + size)])
        }
        // An empty value is still written by one empty part at offset 0.
        if parts.isEmpty { parts = [prepareWrite(handle, offset: 0, [])] }
        return parts + [executeWrite(commit: true)]
    }

    /// Whether `answer` is the Prepare Write Response echoing `request` (Vol 3 Part F §3.4.6.2).
    static func echoes(_ answer: [UInt8], _ request: [UInt8]) -> Bool {
        answer.first == ATTOpcode.prepareWriteResponse.rawValue && Array(answer.dropFirst()) == Array(request.dropFirst())
    }
}
