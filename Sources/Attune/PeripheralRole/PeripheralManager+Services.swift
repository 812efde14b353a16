extension PeripheralManager {
    /// Publishes a service after the existing ones, like `add(_:)`. Connected centrals
    /// subscribed to Service Changed are told; others learn through the Database Hash.
    @discardableResult
    public func add(_ service: ServiceDefinition) throws(AttuneError) -> PublishedService {
        try add(contentsOf: [service])[0]
    }

    /// Publishes several services at once, in order: services that include one another
    /// (``ServiceDefinition/includes`` names another's ``ServiceDefinition/id``) must
    /// come in the same call. One Service Changed covers them all.
    @discardableResult
    public func add(contentsOf definitions: [ServiceDefinition]) throws(AttuneError) -> [PublishedService] {
        guard !definitions.isEmpty else { return [] }
        // Explicit handles are honoured where free (the first service's too); the rest
        // follow the services already published. Errors name the service by its index,
        // never by listing every UUID: a database can hold thousands.
        let attributes: [Attribute]
        do {
            attributes = try server.database.attributes(placing: definitions)
        } catch {
            throw .operationNotSupported("\(definitions.count == 1 ? "the service does" : "the \(definitions.count) services do") not fit: \(error)")
        }
        var out = makeOutput()
        do {
            try server.modifyDatabase(at: now, into: &out) { (db: inout AttributeDatabase) throws(DatabaseError) in
                try db.insert(attributes)
            }
        } catch {
            throw .operationNotSupported("the services cannot be added: \(error)")
        }
        flush(out)
        let starts = Set(attributes.filter(\.isServiceDeclaration).map(\.handle))
        return services.filter { starts.contains($0.startHandle) }
    }

    /// Withdraws a published service, like `remove(_:)`; Service Changed follows.
    public func remove(_ service: PublishedService) throws(AttuneError) {
        var out = makeOutput()
        do {
            try server.modifyDatabase(at: now, into: &out) { (db: inout AttributeDatabase) throws(DatabaseError) in
                try db.removeService(at: service.startHandle)
            }
        } catch {
            throw .operationNotSupported("service \(service.uuid) cannot be removed: \(error)")
        }
        flush(out)
    }

    /// Replaces a stored value without telling anyone (see
    /// ``updateValue(_:for:onSubscribedCentrals:)`` for that).
    public func setValue(_ value: [UInt8], for characteristic: PublishedCharacteristic) throws(AttuneError) {
        do {
            try server.setValue(value, for: characteristic.valueHandle)
        } catch {
            throw .attributeNotFound("\(error)")
        }
    }

    /// The stored value of a characteristic.
    public func value(of characteristic: PublishedCharacteristic) -> [UInt8]? {
        server.database[characteristic.valueHandle]?.value
    }

    /// Starts advertising, like `startAdvertising(_:)` with its advertisement data keys.
    public func startAdvertising(localName: String? = nil, serviceUUIDs: [BluetoothUUID] = [],
                                 manufacturerData: [UInt16: [UInt8]] = [:], serviceData: [BluetoothUUID: [UInt8]] = [:],
                                 txPowerLevel: Int8? = nil, appearance: UInt16? = nil,
                                 connectable: Bool = true) throws(AttuneError) {
        let parameters = AdvertisingParameters(localName: localName, serviceUUIDs: serviceUUIDs,
                                               manufacturerData: manufacturerData, serviceData: serviceData,
                                               txPowerLevel: txPowerLevel, appearance: appearance,
                                               isConnectable: connectable)
        try backend.startAdvertising(parameters) { link in
            Task { await self.accept(link) }
        }
        advertising = parameters
        advertisingEnabled = true
        // Already full (a limit below the centrals still connected): pause at once.
        updateAdvertising()
    }

    /// Stops advertising; connected centrals stay connected.
    public func stopAdvertising() {
        backend.stopAdvertising()
        advertising = nil
        advertisingEnabled = false
    }

    /// Whether advertising is on, like `isAdvertising`.
    public var isAdvertising: Bool { advertising != nil }
}
