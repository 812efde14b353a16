import ATT

extension GATTServer {
    /// The clients a value goes to: the ones named, or every connected client whose
    /// configuration has `bit` set.
    func targets(_ to: [ConnectionID]?, _ c: CharacteristicRecord, _ bit: ClientCharacteristicConfiguration) -> [ConnectionID] {
        if let to {
            // The common case, every named client connected, takes no new array.
            return to.allSatisfy { connections.slot(of: $0) != nil } ? to : to.filter { connections.slot(of: $0) != nil }
        }
        return connections.compactMap { id, client in core.configuration(of: c, client).contains(bit) ? id : nil }
            .sorted { $0.rawValue < $1.rawValue }
    }

    func characteristic(_ valueHandle: AttributeHandle, needs property: CharacteristicProperties)
        throws(GATTServerError) -> CharacteristicRecord {
        guard let c = core.database.characteristic(valueHandle: valueHandle) else { throw .notACharacteristicValue(valueHandle) }
        guard c.properties.contains(property) else { throw .propertyNotSupported(valueHandle) }
        return c
    }

    /// Sends a Handle Value Notification of `value` for the characteristic at
    /// `valueHandle`, to the clients named or else to every subscribed client. As Vol 3
    /// Part G §4.10 says, a value longer than ATT_MTU − 3 is sent truncated to its first
    /// ATT_MTU − 3 octets. Returns the clients it was sent to.
    @discardableResult
    public mutating func notify(_ value: [UInt8], characteristic valueHandle: AttributeHandle,
                                to clients: [ConnectionID]? = nil, into out: inout GATTServerOutput)
        throws(GATTServerError) -> [ConnectionID] {
        let c = try characteristic(valueHandle, needs: .notify)
        let targets = targets(clients, c, .notification)
        // Built only when a client fails, so the usual notification allocates no list.
        var sent: [ConnectionID]?
        for (index, id) in targets.enumerated() {
            let start = out.buffer.count
            var delivered = false
            if let slot = connections.slot(of: id) {
                // In place by slot: access by id would copy the client's state out and back.
                delivered = (try? connections[slot: slot].bearer.sendNotification(valueHandle, value, into: &out.buffer)) != nil
            }
            if delivered {
                out.commit(id, from: start)
                sent?.append(id)
            } else if sent == nil {
                sent = Array(targets[..<index])
            }
        }
        return sent ?? targets
    }

    /// Sends several values at once: a Multiple Handle Value Notification to clients that
    /// declared support for it (Client Supported Features bit 2) when the values fit in one
    /// PDU, single notifications otherwise (values are never truncated in the multiple
    /// form). Each value goes only to clients subscribed to it unless `clients` is given.
    public mutating func notifyMultiple(_ values: [(characteristic: AttributeHandle, value: [UInt8])],
                                        to clients: [ConnectionID]? = nil, into out: inout GATTServerOutput)
        throws(GATTServerError) {
        var records: [CharacteristicRecord] = []
        for v in values { records.append(try characteristic(v.characteristic, needs: .notify)) }
        let ids = clients ?? connections.keys
        for id in ids {
            guard let client = connections[id] else { continue }
            let mine = values.indices.filter { clients != nil || core.configuration(of: records[$0], client).contains(.notification) }
            guard !mine.isEmpty else { continue }
            let size = 1 + mine.reduce(0) { $0 + 4 + values[$1].value.count }
            if mine.count >= 2, client.supportedFeatures.contains(.multipleHandleValueNotifications),
               size <= client.bearer.mtu,
               let pdu = try? MultipleHandleValueNotification(entries: mine.map {
                   MultipleHandleValueNotification.Entry(handle: values[$0].characteristic, value: values[$0].value[...])
               }) {
                let start = out.buffer.count
                if (try? connections[id]!.bearer.sendNotification(pdu, into: &out.buffer)) != nil { out.commit(id, from: start) }
            } else {
                for k in mine { _ = try notify(values[k].value, characteristic: values[k].characteristic, to: [id], into: &out) }
            }
        }
    }

    /// Queues a Handle Value Indication for the clients named or every subscribed client;
    /// each is sent when the previous one on that bearer is confirmed, and completes with
    /// ``GATTServerEvent/indicationCompleted(_:_:_:)``. Values longer than ATT_MTU − 3 are
    /// truncated as Vol 3 Part G §4.11 says.
    @discardableResult
    public mutating func indicate(_ value: [UInt8], characteristic valueHandle: AttributeHandle,
                                  to clients: [ConnectionID]? = nil, at now: MonotonicTime,
                                  into out: inout GATTServerOutput) throws(GATTServerError) -> [ConnectionID: IndicationID] {
        let c = try characteristic(valueHandle, needs: .indicate)
        var ids: [ConnectionID: IndicationID] = [:]
        for id in targets(clients, c, .indication) {
            guard connections[id]!.queuedIndicationCount < core.configuration.indicationQueueLimit else {
                throw .indicationQueueFull(id)
            }
            let indication = IndicationID(rawValue: core.makeID())
            connections[id]!.indications.append(QueuedIndication(id: indication, handle: valueHandle, value: value,
                                                                 isServiceChanged: false))
            ids[id] = indication
            pumpIndications(on: id, at: now, into: &out)
        }
        return ids
    }

    mutating func pumpIndications(on id: ConnectionID, at now: MonotonicTime, into out: inout GATTServerOutput) {
        guard !holdIndications, let client = connections[id], !client.indicationInFlight,
              client.indicationHead < client.indications.count else { return }
        let next = client.indications[client.indicationHead]
        let start = out.buffer.count
        let pdu = HandleValueIndication(handle: next.handle, value: next.value.prefix(client.bearer.mtu - 3))
        do {
            try connections[id]!.bearer.sendIndication(pdu, into: &out.buffer, at: now)
            out.commit(id, from: start)
            connections[id]!.indicationInFlight = true
        } catch {
            out.buffer.removeSubrange(start...)
        }
    }

    mutating func confirmIndication(on id: ConnectionID, at now: MonotonicTime, into out: inout GATTServerOutput) {
        guard let client = connections[id], client.indicationInFlight else { return }
        let done = client.indications[client.indicationHead]
        connections[id]!.indicationHead += 1
        connections[id]!.indicationInFlight = false
        if connections[id]!.indicationHead == connections[id]!.indications.count {
            connections[id]!.indications.removeAll(keepingCapacity: true)
            connections[id]!.indicationHead = 0
        }
        if done.isServiceChanged { connections[id]!.awareness = .aware }
        out.events.append(.indicationCompleted(done.id, id, .confirmed))
        pumpIndications(on: id, at: now, into: &out)
    }

    func failIndications(_ client: inout GATTLink, _ id: ConnectionID, _ reason: ATTBearerCloseReason,
                         _ out: inout GATTServerOutput) {
        for q in client.indications[client.indicationHead...] {
            out.events.append(.indicationCompleted(q.id, id, .failed(reason)))
        }
        client.indications.removeAll()
        client.indicationHead = 0
        client.indicationInFlight = false
    }
}
