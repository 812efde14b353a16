extension Peripheral {
    /// The whole tree, when the link's engine discovered or confirmed it on connect.
    var knownTree: [Service]? { memory.cache?.services }

    /// Discovers primary services, all of them or those with the given UUIDs, like
    /// `discoverServices(_:)`. Answered from the validated GATT cache when there is one.
    @discardableResult
    public func discoverServices(_ uuids: [BluetoothUUID]? = nil) async throws(AttuneError) -> [Service] {
        guard lifecycle.connectionState == .connected else { throw .notConnected }
        var found: [Service]
        if let tree = knownTree {
            found = tree.filter { $0.isPrimary && (uuids?.contains($0.uuid) ?? true) }
        } else if let uuids {
            found = []
            for uuid in uuids {
                if case .services(let list) = try await request(.discoverPrimaryServices(uuid)) {
                    found += list.map(Service.init)
                }
            }
        } else {
            guard case .services(let list) = try await request(.discoverAllPrimaryServices()) else { return [] }
            found = list.map(Service.init)
        }
        // As in Core Bluetooth, the tree starts bare: characteristics come with their own call.
        found = found.map { var s = $0; s.characteristics = nil; s.includedServices = nil; return s }
        revealed = revealed ?? []
        reveal(found)
        return found
    }

    /// Discovers the services `service` includes, like `discoverIncludedServices(_:for:)`,
    /// all or those with the given UUIDs: fills the service's
    /// ``Service/includedServices`` in ``services`` and returns the included services.
    /// They join ``services`` too, secondary ones included, so their characteristics are
    /// discovered and used like those of any primary service.
    @discardableResult
    public func discoverIncludedServices(_ uuids: [BluetoothUUID]? = nil, for service: Service)
        async throws(AttuneError) -> [Service] {
        guard lifecycle.connectionState == .connected else { throw .notConnected }
        var includes: [IncludedService]
        var included: [Service] = []
        if let tree = knownTree, let index = tree.firstIndex(startingAt: service.startHandle),
           let known = tree[index].includedServices {
            includes = known.filter { uuids?.contains($0.uuid) ?? true }
            for i in includes {
                included.append(tree.firstIndex(startingAt: i.startHandle).map { tree[$0] }
                                ?? Service(uuid: i.uuid, isPrimary: false, startHandle: i.startHandle, endHandle: i.endHandle))
            }
        } else {
            guard case .includes(let list) = try await request(.findIncludedServices(in: service.handleRange)) else { return [] }
            includes = list.map(IncludedService.init).filter { uuids?.contains($0.uuid) ?? true }
            for i in includes {
                included.append(Service(uuid: i.uuid, isPrimary: try await isPrimary(i), startHandle: i.startHandle,
                                        endHandle: i.endHandle))
            }
        }
        // Two declarations may include the same service; it is one service all the same.
        var seen: Set<AttributeHandle> = []
        included = included.filter { seen.insert($0.startHandle).inserted }
            .map { var s = $0; s.characteristics = nil; s.includedServices = nil; return s }
        updateService(service.startHandle) { s in
            var list = s.includedServices ?? []
            for i in includes where !list.contains(where: { $0.declarationHandle == i.declarationHandle }) { list.append(i) }
            s.includedServices = list.sorted { $0.declarationHandle < $1.declarationHandle }
        }
        reveal(included)
        return included
    }

    /// Whether an included service is primary: an include declaration does not say, so
    /// unless the service was already found among the primaries, Discover Secondary
    /// Services over its group tells. A server that refuses that request with an ATT
    /// error still has the service: it is taken as secondary, what includes mostly name.
    private func isPrimary(_ include: IncludedService) async throws(AttuneError) -> Bool {
        if let tree = revealed, let known = tree.firstIndex(startingAt: include.startHandle) { return tree[known].isPrimary }
        let group = AttributeHandleRange(start: include.startHandle, end: include.endHandle)
        guard group.isValid else { return false }
        do {
            guard case .services(let list) = try await request(.discoverSecondaryServices(in: group)) else { return false }
            return !list.contains { $0.handleRange.start == include.startHandle }
        } catch .att {
            return false
        }
    }

    /// Discovers the characteristics of `service`, all or those with the given UUIDs.
    @discardableResult
    public func discoverCharacteristics(_ uuids: [BluetoothUUID]? = nil, for service: Service)
        async throws(AttuneError) -> [Characteristic] {
        guard lifecycle.connectionState == .connected else { throw .notConnected }
        var found: [Characteristic]
        if let tree = knownTree, let index = tree.firstIndex(startingAt: service.startHandle) {
            found = tree[index].characteristics ?? []
        } else {
            guard case .characteristics(let list) = try await request(.discoverAllCharacteristics(in: service.handleRange))
            else { return [] }
            found = list.map { Characteristic($0, service: service.startHandle) }
        }
        found = found.filter { uuids?.contains($0.uuid) ?? true }.map { var c = $0; c.descriptors = nil; return c }
        updateService(service.startHandle) { s in
            var list = s.characteristics ?? []
            for c in found where !list.contains(where: { $0.valueHandle == c.valueHandle }) { list.append(c) }
            s.characteristics = list.sorted { $0.valueHandle < $1.valueHandle }
        }
        return found
    }

    /// Discovers the descriptors of `characteristic`.
    @discardableResult
    public func discoverDescriptors(for characteristic: Characteristic) async throws(AttuneError) -> [Descriptor] {
        guard lifecycle.connectionState == .connected else { throw .notConnected }
        var found: [Descriptor] = []
        if let known = knownCharacteristic(characteristic)?.descriptors {
            found = known
        } else if let range = characteristic.descriptorRange,
                  case .descriptors(let list) = try await request(.discoverDescriptors(in: range)) {
            found = list.map { Descriptor(uuid: $0.uuid, handle: $0.handle, characteristicHandle: characteristic.valueHandle) }
        }
        updateService(characteristic.serviceHandle) { s in
            guard let i = s.characteristics?.firstIndex(where: { $0.valueHandle == characteristic.valueHandle }) else { return }
            s.characteristics![i].descriptors = found
        }
        return found
    }

    /// The characteristic in the full tree, when the lifecycle knows it: looked up in
    /// its own service (by binary search; a hostile tree may put a primary and a
    /// secondary service at the same handle), not by a scan of every service.
    func knownCharacteristic(_ characteristic: Characteristic) -> Characteristic? {
        guard let tree = knownTree, var i = tree.firstIndex(startingAt: characteristic.serviceHandle) else { return nil }
        while i < tree.count, tree[i].startHandle == characteristic.serviceHandle {
            if let c = tree[i].characteristics?.first(where: { $0.valueHandle == characteristic.valueHandle }) { return c }
            i += 1
        }
        return nil
    }

    /// Adds services to the revealed tree, in handle order, keeping what is already known
    /// of those it holds. Before ``discoverServices(_:)`` there is no tree to add to.
    private func reveal(_ services: [Service]) {
        // In place, and nothing for nothing: the tree walk reveals each service's
        // includes, mostly none, and a peer may declare a service at every handle.
        guard revealed != nil, !services.isEmpty else { return }
        for s in services where revealed!.firstIndex(startingAt: s.startHandle) == nil {
            revealed!.insert(s, at: revealed!.insertionIndex(for: s.startHandle))
        }
    }

    /// Changes one service of the revealed tree in place (a copy of the tree per call
    /// would make the walk quadratic).
    private func updateService(_ start: AttributeHandle, _ change: (inout Service) -> Void) {
        guard let i = revealed?.firstIndex(startingAt: start) else { return }
        change(&revealed![i])
    }
}
