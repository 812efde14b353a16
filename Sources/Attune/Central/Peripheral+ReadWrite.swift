extension Peripheral {
    /// Reads a characteristic's whole value (with Read Blob for long values), like
    /// `readValue(for:)`.
    public func readValue(for characteristic: Characteristic) async throws(AttuneError) -> [UInt8] {
        guard characteristic.properties.contains(.read) else {
            throw .operationNotSupported("characteristic \(characteristic.uuid) is not readable")
        }
        return try await readValue(at: characteristic.valueHandle)
    }

    /// Reads a descriptor's value.
    public func readValue(for descriptor: Descriptor) async throws(AttuneError) -> [UInt8] {
        try await readValue(at: descriptor.handle)
    }

    /// The engine's Read Long procedure from offset 0: a Read Request, and Read Blob only
    /// when a full response may hide more, so a short value costs one round trip.
    private func readValue(at handle: AttributeHandle) async throws(AttuneError) -> [UInt8] {
        guard case .value(let value) = try await request(.readLongValue(handle, offset: 0)) else { return [] }
        return value
    }

    /// Writes a characteristic's value, like `writeValue(_:for:type:)`.
    ///
    /// With response, values up to ATT_MTU − 3 take one Write Request and longer ones
    /// the long-write procedure. Without response, the write waits until the link can
    /// take it (see ``canSendWriteWithoutResponse``) and is never dropped. To a
    /// characteristic with only the authenticated-signed-writes property, a write without
    /// response is signed with the bond's key on an unencrypted link (up to ATT_MTU − 15).
    public func writeValue(_ value: [UInt8], for characteristic: Characteristic,
                           type: CharacteristicWriteType) async throws(AttuneError) {
        let maximum = maximumWriteValueLength(for: type)
        guard value.count <= maximum else { throw .invalidValueLength(value.count, maximum: maximum) }
        switch type {
        case .withResponse:
            guard characteristic.properties.contains(.write) else {
                throw .operationNotSupported("characteristic \(characteristic.uuid) does not take writes with response")
            }
            if value.count <= mtu - 3 {
                _ = try await request(.writeValue(characteristic.valueHandle, value))
            } else {
                _ = try await request(.writeLongValue(characteristic.valueHandle, value))
            }
        case .withoutResponse:
            // A characteristic that takes only signed writes gets a Signed Write Command,
            // as with Core Bluetooth.
            if !characteristic.properties.contains(.writeWithoutResponse),
               characteristic.properties.contains(.authenticatedSignedWrites) {
                return try await signedWrite(value, for: characteristic)
            }
            guard characteristic.properties.contains(.writeWithoutResponse) else {
                throw .operationNotSupported("characteristic \(characteristic.uuid) does not take writes without response")
            }
            await readyToSendWriteWithoutResponse()
            _ = try await request(.writeWithoutResponse(characteristic.valueHandle, value))
        }
    }

    /// Writes a descriptor's value (always with response).
    public func writeValue(_ value: [UInt8], for descriptor: Descriptor) async throws(AttuneError) {
        _ = try await request(value.count <= mtu - 3 ? .writeValue(descriptor.handle, value)
                                                      : .writeLongValue(descriptor.handle, value))
    }

    /// Whether a write without response would go out now, like
    /// `canSendWriteWithoutResponse`.
    public var canSendWriteWithoutResponse: Bool { link?.canSend ?? false }

    /// Returns when a write without response can go out (or the link is gone): the
    /// `peripheralIsReady(toSendWriteWithoutResponse:)` signal.
    public func readyToSendWriteWithoutResponse() async {
        guard let link else { return }
        await link.sendReady()
    }
}
