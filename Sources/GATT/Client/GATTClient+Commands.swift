import ATT

extension GATTClient {
    /// Queues a command; its ``GATTClientAction/complete(_:_:)`` comes later (or at once
    /// when nothing needs to be sent).
    @discardableResult
    public mutating func perform(_ command: GATTClientCommand, bearer: inout ATTBearer, at now: MonotonicTime,
                                 into actions: inout [GATTClientAction]) -> GATTRequestID {
        let id = makeID()
        if let closeError {
            actions.append(.complete(id, .failure(closeError)))
            return id
        }
        switch command {
        case .exchangeMTU where mtuExchangeQueued:
            // Exchange MTU happens at most once per connection (Vol 3 Part F §3.4.2.1).
            queue.append(Pending(id: id, procedure: CurrentMTUProcedure(), purpose: .command))
        case .exchangeMTU:
            mtuExchangeQueued = true
            queue.append(Pending(id: id, procedure: ExchangeMTUProcedure(rxMTU: bearer.rxMTU), purpose: .command))
        case let .discoverAllPrimaryServices(range):
            queue.append(Pending(id: id, procedure: DiscoverServicesProcedure(range: range, primary: true), purpose: .command))
        case let .discoverSecondaryServices(range):
            queue.append(Pending(id: id, procedure: DiscoverServicesProcedure(range: range, primary: false), purpose: .command))
        case let .discoverPrimaryServices(uuid, range):
            queue.append(Pending(id: id, procedure: DiscoverPrimaryServiceByUUIDProcedure(uuid: uuid, range: range), purpose: .command))
        case let .findIncludedServices(range):
            queue.append(Pending(id: id, procedure: FindIncludedServicesProcedure(range: range), purpose: .command))
        case let .discoverAllCharacteristics(range):
            queue.append(Pending(id: id, procedure: DiscoverCharacteristicsProcedure(range: range), purpose: .command))
        case let .discoverCharacteristics(uuid, range):
            queue.append(Pending(id: id, procedure: DiscoverCharacteristicsProcedure(range: range, uuid: uuid), purpose: .command))
        case let .discoverDescriptors(range):
            queue.append(Pending(id: id, procedure: DiscoverDescriptorsProcedure(range: range), purpose: .command))
        case let .readValue(handle):
            queue.append(Pending(id: id, procedure: ReadCharacteristicValueProcedure(handle: handle), purpose: .command))
        case let .readUsingCharacteristicUUID(uuid, range):
            queue.append(Pending(id: id, procedure: ReadUsingCharacteristicUUIDProcedure(uuid: uuid, range: range), purpose: .command))
        case let .readLongValue(handle, offset):
            queue.append(Pending(id: id, procedure: ReadLongCharacteristicValueProcedure(handle: handle, offset: offset), purpose: .command))
        case let .readMultiple(handles):
            queue.append(Pending(id: id, procedure: ReadMultipleProcedure(handles: handles), purpose: .command))
        case let .readMultipleVariable(handles):
            queue.append(Pending(id: id, procedure: ReadMultipleVariableProcedure(handles: handles), purpose: .command))
        case let .writeWithoutResponse(handle, value):
            queue.append(Pending(id: id, procedure: WriteWithoutResponseProcedure(handle: handle, value: value), purpose: .command))
        case let .signedWriteWithoutResponse(handle, value):
            queue.append(Pending(id: id, procedure: SignedWriteWithoutResponseProcedure(handle: handle, value: value), purpose: .signedWrite))
        case let .writeValue(handle, value):
            queue.append(Pending(id: id, procedure: WriteCharacteristicValueProcedure(handle: handle, value: value), purpose: .command))
        case let .writeLongValue(handle, offset, value):
            queue.append(Pending(id: id, procedure: WriteLongCharacteristicValuesProcedure(
                writes: [PreparedWrite(handle: handle, offset: offset, value: value)], reliable: false), purpose: .command))
        case let .reliableWrite(writes):
            queue.append(Pending(id: id, procedure: WriteLongCharacteristicValuesProcedure(writes: writes, reliable: true), purpose: .command))
        case .discoverDatabase:
            queue.append(Pending(id: id, procedure: discovery(cached: nil), purpose: .command))
        case .refreshDatabase:
            queue.append(Pending(id: id, procedure: discovery(cached: database.services.isEmpty ? nil : database),
                                 purpose: .command))
        case let .subscribe(valueHandle, kind):
            subscribe(id, valueHandle: valueHandle, kind: kind, delta: 1, into: &actions)
        case let .subscribeDescribed(record):
            subscribe(id, record, kind: record.kind, delta: 1, into: &actions)
        case let .unsubscribe(valueHandle):
            subscribe(id, valueHandle: valueHandle, kind: subscriptionTable.kindToDrop(valueHandle), delta: -1, into: &actions)
        }
        pump(bearer: &bearer, at: now, into: &actions)
        return id
    }

    /// Cancels a command. A queued one is dropped; a running one completes with
    /// ``GATTClientError/cancelled`` now, its outstanding response is discarded when it
    /// comes, and prepared writes are cancelled on the server.
    public mutating func cancel(_ id: GATTRequestID, bearer: inout ATTBearer, at now: MonotonicTime,
                                into actions: inout [GATTClientAction]) {
        if let index = queue[queueHead...].firstIndex(where: { $0.id == id }) {
            let removed = queue.remove(at: index)
            finishBookkeeping(removed, .failure(.cancelled), into: &actions)
            return
        }
        guard var current = active, current.pending.id == id, !current.cancelled else { return }
        current.cancelled = true
        active = current
        finishBookkeeping(current.pending, .failure(.cancelled), into: &actions)
    }
}
