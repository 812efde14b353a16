import HCI

/// Drives an ``HCIHost`` from the controller's side, without I/O: answers the
/// initialisation commands and builds the events and ACL packets tests need.
struct FakeController {
    var host: HCIHost
    var now = MonotonicTime.seconds(1000)
    /// Reused across calls, as an I/O edge would.
    var out = HostOutput()
    /// Packets the host sent, in order.
    var sent: [[UInt8]] = []
    var delivered: [HostEvent] = []
    var completions: [HostRequestID: Result<HostCompletion, HostError>] = [:]
    var closed: HostError?
    var aclPacketLength: UInt16
    var aclPackets: UInt8

    init(configuration: HostConfiguration = HostConfiguration(randomAddress: BluetoothAddress(0xC0, 1, 2, 3, 4, 5)),
         aclPacketLength: UInt16 = 27, aclPackets: UInt8 = 4) {
        host = HCIHost(configuration: configuration)
        self.aclPacketLength = aclPacketLength
        self.aclPackets = aclPackets
    }

    /// Records one call's output, consumed in the documented order.
    mutating func take(_ output: HostOutput) {
        for packet in output.packets { sent.append(Array(output.bytes(of: packet))) }
        delivered += output.events
        for completion in output.completions { completions[completion.id] = completion.result }
        if let error = output.closeError { closed = error }
    }

    /// Takes what the host wrote into ``out`` and clears it for the next call.
    mutating func takeOut() {
        take(out)
        out.removeAll()
    }

    mutating func receive(_ packet: [UInt8]) {
        host.receive(packet, at: now, into: &out)
        takeOut()
    }

    mutating func perform(_ request: HostRequest, id: UInt64) {
        host.perform(request, id: HostRequestID(id), at: now, into: &out)
        takeOut()
    }

    mutating func advance(_ duration: Duration) {
        now = now + duration
        host.tick(at: now, into: &out)
        takeOut()
    }

    /// The opcode of the last command the host sent.
    var lastOpcode: UInt16? {
        guard let packet = sent.last(where: { $0.first == 0x01 }) else { return nil }
        return UInt16(packet[1]) | UInt16(packet[2]) << 8
    }

    static func commandComplete(_ opcode: UInt16, _ returnParameters: [UInt8], credits: UInt8 = 1) -> [UInt8] {
        [0x04, 0x0E, UInt8(3 + returnParameters.count), credits, UInt8(opcode & 0xFF), UInt8(opcode >> 8)] + returnParameters
    }

    static func commandStatus(_ opcode: UInt16, status: UInt8 = 0, credits: UInt8 = 1) -> [UInt8] {
        [0x04, 0x0F, 4, status, credits, UInt8(opcode & 0xFF), UInt8(opcode >> 8)]
    }

    /// Answers whatever initialisation command the host sent last, until it is ready.
    mutating func initialize(leFeatures: UInt8 = 0x00, publicAddress: [UInt8] = [6, 5, 4, 3, 2, 1]) {
        host.start(at: now, into: &out)
        takeOut()
        answerInitialization(leFeatures: leFeatures, publicAddress: publicAddress)
    }

    /// Answers the initialisation commands the host sends (at start, or after a reset)
    /// until it is ready.
    mutating func answerInitialization(leFeatures: UInt8 = 0x00, publicAddress: [UInt8] = [6, 5, 4, 3, 2, 1]) {
        var guardCount = 0
        while !host.isReady, closed == nil, let opcode = lastOpcode, guardCount < 20 {
            guardCount += 1
            let parameters: [UInt8]
            switch opcode {
            case 0x1002: parameters = [0] + Array(repeating: 0, count: 64)
            case 0x1003: parameters = [0] + Array(repeating: 0, count: 8)
            case 0x2003: parameters = [0, leFeatures, 0, 0, 0, 0, 0, 0, 0]
            case 0x2002: parameters = [0, UInt8(aclPacketLength & 0xFF), UInt8(aclPacketLength >> 8), aclPackets]
            case 0x1009: parameters = [0] + publicAddress
            default: parameters = [0]
            }
            receive(Self.commandComplete(opcode, parameters))
        }
    }

    /// LE Connection Complete (legacy) with success.
    static func connectionComplete(handle: UInt16, role: UInt8 = 0, peer: [UInt8] = [1, 2, 3, 4, 5, 0xF0]) -> [UInt8] {
        let body: [UInt8] = [0x01, 0x00, UInt8(handle & 0xFF), UInt8(handle >> 8), role, 0x01] + peer
            + [0x18, 0x00, 0x00, 0x00, 0xF4, 0x01, 0x00]
        return [0x04, 0x3E, UInt8(body.count)] + body
    }

    static func disconnectionComplete(handle: UInt16, reason: UInt8) -> [UInt8] {
        [0x04, 0x05, 4, 0, UInt8(handle & 0xFF), UInt8(handle >> 8), reason]
    }

    static func numberOfCompletedPackets(_ entries: [(UInt16, UInt16)]) -> [UInt8] {
        var body: [UInt8] = [UInt8(entries.count)]
        for (handle, count) in entries {
            body += [UInt8(handle & 0xFF), UInt8(handle >> 8), UInt8(count & 0xFF), UInt8(count >> 8)]
        }
        return [0x04, 0x13, UInt8(body.count)] + body
    }

    /// One unfragmented ACL packet carrying an L2CAP basic frame.
    static func acl(handle: UInt16, channel: UInt16, payload: [UInt8], boundary: UInt16 = 0b10) -> [UInt8] {
        let frame = [UInt8(payload.count & 0xFF), UInt8(payload.count >> 8), UInt8(channel & 0xFF), UInt8(channel >> 8)] + payload
        let word = handle | boundary << 12
        return [0x02, UInt8(word & 0xFF), UInt8(word >> 8), UInt8(frame.count & 0xFF), UInt8(frame.count >> 8)] + frame
    }

    /// The L2CAP payloads the host sent on `channel` of `handle`, assuming unfragmented frames.
    func sentFrames(handle: UInt16, channel: UInt16) -> [[UInt8]] {
        sent.compactMap { packet in
            guard packet.first == 0x02, packet.count >= 9,
                  UInt16(packet[1]) | UInt16(packet[2] & 0x0F) << 8 == handle,
                  UInt16(packet[7]) | UInt16(packet[8]) << 8 == channel else { return nil }
            return Array(packet[9...])
        }
    }

    var warnings: [HostWarning] {
        delivered.compactMap { if case .warning(let warning) = $0 { return warning } else { return nil } }
    }
}

extension HCIHost {
    /// One call's output on its own, for tests that look at a single call.
    mutating func receiving(_ packet: [UInt8], at now: MonotonicTime) -> HostOutput {
        var out = HostOutput()
        receive(packet, at: now, into: &out)
        return out
    }

    mutating func ticking(at now: MonotonicTime) -> HostOutput {
        var out = HostOutput()
        tick(at: now, into: &out)
        return out
    }

    mutating func starting(at now: MonotonicTime) -> HostOutput {
        var out = HostOutput()
        start(at: now, into: &out)
        return out
    }

    mutating func closing(_ reason: String, at now: MonotonicTime) -> HostOutput {
        var out = HostOutput()
        transportClosed(reason, at: now, into: &out)
        return out
    }
}
