extension HCIHost {
    /// Whether an ATT PDU of the peer goes on to the application. An indication that
    /// arrives while the previous one is unconfirmed breaks the sequential protocol: the
    /// host reports ``HostEvent/indicationBeforeConfirmation(handle:)`` and disconnects
    /// the link (Remote User Terminated Connection), and delivers nothing more of its ATT.
    mutating func admitsATT(_ pdu: ArraySlice<UInt8>, on handle: UInt16) -> Bool {
        guard let connection = connections[handle] else { return false }
        let isIndication = pdu.first == PeerIndicationSequence.handleValueIndication
        switch connection.peerIndications {
        case .broken:
            return false
        case .awaitingConfirmation where isIndication:
            connections[handle]?.peerIndications = .broken
            output.events.append(.indicationBeforeConfirmation(handle: handle))
            apply(.peerBrokeATT, to: handle)
            return false
        case .idle where isIndication:
            connections[handle]?.peerIndications = .awaitingConfirmation
            return true
        case .idle, .awaitingConfirmation:
            return true
        }
    }

    /// Notes an ATT PDU of ours on its way to the peer: a confirmation lets the peer
    /// send its next indication.
    mutating func sendingATT(_ payload: ArraySlice<UInt8>, on handle: UInt16) {
        guard payload.first == PeerIndicationSequence.handleValueConfirmation,
              connections[handle]?.peerIndications == .awaitingConfirmation else { return }
        connections[handle]?.peerIndications = .idle
    }
}
