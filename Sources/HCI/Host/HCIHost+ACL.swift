extension HCIHost {
    mutating func receiveACL(_ bytes: ArraySlice<UInt8>) {
        let packet: ACLDataPacket
        do {
            packet = try ACLDataPacket(decoding: bytes)
        } catch {
            warn(.malformedACL(error))
            return
        }
        guard let connection = connections[packet.handle] else {
            warn(.aclForUnknownHandle(packet.handle))
            return
        }
        // Controllers may deliver PDUs longer than their own buffer size in one packet;
        // the reassembler accepts any length up to the configured frame limit.
        let reassembled = reassembler.receive(packet, key: 0)
        if let dropped = reassembled.dropped {
            warn(.l2capDropped(handle: packet.handle, dropped.description))
        }
        guard let bytes = reassembled.frame else { return }
        let frame: L2CAPBasicFrame
        do {
            frame = try L2CAPBasicFrame(decoding: bytes)
        } catch {
            warn(.l2capDropped(handle: packet.handle, error.description))
            return
        }
        receiveFrame(frame, on: connection.info)
    }

    mutating func receiveFrame(_ frame: L2CAPBasicFrame, on connection: ConnectionInfo) {
        let handle = connection.handle
        switch frame.channel {
        case .attribute:
            guard admitsATT(frame.payload, on: handle) else { return }
            output.events.append(.attributeData(handle: handle, pdu: Array(frame.payload)))
        case .leSignaling:
            let outcome = LESignalingChannel.handle(frame.payload, handle: handle, role: connection.role,
                                                    configuration: configuration)
            if let reply = outcome.reply { sendFrame(handle, .leSignaling, reply) }
            if let event = outcome.event { output.events.append(event) }
            if let parameters = outcome.acceptedParameters {
                commands.enqueue(LEConnectionUpdate(connectionHandle: handle, parameters: parameters), .internal)
            }
        case .securityManager where configuration.pairingEnabled:
            output.events.append(.securityManagerData(handle: handle, pdu: Array(frame.payload)))
        case .securityManager:
            if let reply = SecurityManagerRefusal.answer(to: frame.payload) {
                sendFrame(handle, .securityManager, reply)
                if frame.payload.first == SecurityManagerRefusal.Code.pairingRequest
                    || frame.payload.first == SecurityManagerRefusal.Code.securityRequest {
                    output.events.append(.pairingRefused(handle: handle))
                }
            }
        default:
            // No dynamic channels exist; data for a closed channel is dropped (Vol 3 Part A §3).
            warn(.unknownChannel(handle: handle, channel: frame.channel))
        }
    }

    mutating func sendFrame(_ handle: UInt16, _ channel: L2CAPChannelID, _ payload: [UInt8]) {
        acl.enqueue(handle, L2CAPFragmenter.fragments(handle: handle, channel: channel, payload: payload[...],
                                                      maximumFragmentLength: acl.packetLength))
    }
}
