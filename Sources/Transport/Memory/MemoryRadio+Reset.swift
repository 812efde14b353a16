import HCI

extension MemoryRadio {
    /// Resets one controller on the radio, as HCI_Reset resets a real one: its links end
    /// (its side with Connection Terminated By Local Host, 0x16; the peer, whose
    /// controller simply stops hearing it, with Connection Timeout, 0x08), its connect
    /// attempts fail, its scans and advertising stop, and it alone reports
    /// ``ManagerState/resetting`` until it is ``ManagerState/poweredOn`` again. The other
    /// controllers on the radio keep everything else.
    func resetController(_ controller: BluetoothAddress) throws(AttuneError) {
        let taken = state.withLock { s -> (links: [MemoryLink], pending: [PendingConnect],
                                          listeners: [AsyncStream<ManagerStatus>.Continuation])? in
            guard s.powered else { return nil }
            s.resetting.insert(controller)
            let links = s.links.filter { $0.owner == controller }.map(\.end)
            s.links.removeAll { $0.owner == controller }
            let pending = s.pending.filter { $0.value.central.0 == controller }
            for id in pending.keys { s.pending[id] = nil }
            for (token, owner) in s.scanOwners where owner == controller {
                s.scanners[token] = nil
                s.scanOwners[token] = nil
            }
            s.advertisers[controller] = nil
            return (links, Array(pending.values), s.statusListeners.values.filter { $0.owner == controller }.map(\.continuation))
        }
        guard let taken else { throw .unavailable(.adapterDown("memory radio")) }
        for listener in taken.listeners { listener.yield(ManagerStatus(state: .resetting)) }
        for link in taken.links { link.close(peerSees: HCIStatus.connectionTimeout) }
        for connect in taken.pending {
            connect.continuation.resume(throwing: AttuneError.connectionFailed(.transport("the controller was reset")))
        }
        // Nothing on the radio takes time: the controller is back at once.
        let back = state.withLock { s -> [(AsyncStream<ManagerStatus>.Continuation, ManagerStatus)] in
            s.resetting.remove(controller)
            return s.statusListeners.values.filter { $0.owner == controller }
                .map { ($0.continuation, Self.status(of: controller, s)) }
        }
        for (listener, status) in back { listener.yield(status) }
    }
}
