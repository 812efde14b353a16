extension HCIHost {
    /// Queues an L2CAP payload on a live link with nothing to wait for: no request id and
    /// no completion. For senders that pace themselves on the link's queue
    /// (``queuedACLPacketCount(on:)``), such as an ATT bearer.
    ///
    /// A link that is gone takes nothing: its owner learns of the end from the link's
    /// events. A payload the link cannot take (over 65535 octets, or past
    /// ``HostConfiguration/maximumQueuedACLPackets``) is dropped with an
    /// ``HostWarning/l2capDropped(handle:_:)`` warning, counted in ``warningCounts``.
    public mutating func send(_ payload: [UInt8], on handle: UInt16, channel: L2CAPChannelID,
                              at now: MonotonicTime, into out: inout HostOutput) {
        send(payload[...], on: handle, channel: channel, at: now, into: &out)
    }

    /// Queues an L2CAP payload that sits in a buffer of the caller's (a GATT server's
    /// output), like ``send(_:on:channel:at:into:)``: it is framed into ACL packets
    /// straight from there, with no array of its own in between.
    public mutating func send(_ payload: ArraySlice<UInt8>, on handle: UInt16, channel: L2CAPChannelID,
                              at now: MonotonicTime, into out: inout HostOutput) {
        guard phase == .ready, connections[handle] != nil else { return }
        swap(&output, &out)
        defer { swap(&output, &out) }
        if let refusal = queueL2CAP(payload, on: handle, channel: channel) {
            warn(.l2capDropped(handle: handle, "not sent: \(refusal)"))
        }
        flush(at: now)
    }

    /// Frames, fragments and queues a payload on a live link; the reason when the link
    /// cannot take it.
    mutating func queueL2CAP(_ payload: ArraySlice<UInt8>, on handle: UInt16, channel: L2CAPChannelID) -> HostError? {
        guard connections[handle]?.disconnect.takesData ?? false else { return .disconnecting(handle) }
        guard payload.count <= 0xFFFF else {
            return .invalidRequest("L2CAP payload of \(payload.count) bytes exceeds 65535")
        }
        let packets = L2CAPFragmenter.fragments(handle: handle, channel: channel, payload: payload,
                                                maximumFragmentLength: acl.packetLength)
        guard acl.queuedCount(on: handle) + packets.count <= configuration.maximumQueuedACLPackets else {
            return .busy("connection 0x\(String(handle, radix: 16)) has \(acl.queuedCount(on: handle)) ACL packets waiting for controller buffers")
        }
        if channel == .attribute { sendingATT(payload, on: handle) }
        acl.enqueue(handle, packets)
        return nil
    }
}
