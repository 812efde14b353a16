import ATT

/// The request-serving half of the server: the database and the rules of Vol 3 Part F
/// §3.4 applied to one client's state. Kept apart from the connection table so that a
/// request can mutate both the database and its client without overlapping access.
struct ServerCore: Sendable {
    var database: AttributeDatabase
    var configuration: GATTServerConfiguration
    var nextID: UInt64 = 1
    /// Reused to build list responses without allocating.
    var scratch: [UInt8] = []

    init(database: AttributeDatabase, configuration: GATTServerConfiguration) {
        self.database = database
        self.configuration = configuration
        scratch.reserveCapacity(600)
    }

    mutating func makeID() -> UInt64 {
        defer { nextID &+= 1 }
        return nextID
    }

    // MARK: - Sending

    @inline(__always)
    func respond<P: ATTPDUBody>(_ pdu: P, _ connection: ConnectionID, _ client: inout GATTLink,
                                _ out: inout GATTServerOutput) {
        let start = out.buffer.count
        do {
            try client.bearer.sendResponse(pdu, into: &out.buffer)
        } catch {
            // Responses are sized to the MTU before encoding, so this is a bug; the client
            // still gets an answer rather than a stalled transaction.
            out.buffer.removeSubrange(start...)
            try? client.bearer.sendErrorResponse(.unlikelyError, handle: .reserved, into: &out.buffer)
        }
        out.commit(connection, from: start)
    }

    @inline(__always)
    func fail(_ code: ATTErrorCode, _ handle: AttributeHandle, _ connection: ConnectionID,
              _ client: inout GATTLink, _ out: inout GATTServerOutput) {
        let start = out.buffer.count
        try? client.bearer.sendErrorResponse(code, handle: handle, into: &out.buffer)
        out.commit(connection, from: start)
    }

    // MARK: - Access

    // The accessors below read single fields of an attribute rather than copying the
    // whole struct: the copy (and its retains) showed up as a tenth of a Read Request.

    func readError(_ index: Int, _ connection: ConnectionID, _ client: GATTLink) -> ATTErrorCode? {
        let rule = database.attributes[index].permissions.read
        if rule == .open { return nil }
        let handle = database.attributes[index].handle
        return rule.check(client.security, notPermitted: .readNotPermitted) {
            configuration.authorize?(connection, handle, false) ?? false
        }
    }

    func writeError(_ index: Int, _ connection: ConnectionID, _ security: LinkSecurity) -> ATTErrorCode? {
        let rule = database.attributes[index].permissions.write
        if rule == .open { return nil }
        let handle = database.attributes[index].handle
        return rule.check(security, notPermitted: .writeNotPermitted) {
            configuration.authorize?(connection, handle, true) ?? false
        }
    }

    /// The value a client sees, or nil when the application must supply it.
    func value(_ index: Int, _ client: GATTLink, _ resolved: [AttributeHandle: [UInt8]]?) -> ArraySlice<UInt8>? {
        switch database.attributes[index].kind {
        case .stored: return database.attributes[index].value[...]
        case .dynamic: return resolved?[database.attributes[index].handle]?[...]
        case .clientCharacteristicConfiguration:
            return (client.clientConfigurations[database.attributes[index].handle] ?? []).bytes[...]
        case .clientSupportedFeatures: return [client.supportedFeatures.rawValue][...]
        case .databaseHash: return database.hash[...]
        }
    }

    /// The Client Characteristic Configuration a client has for a characteristic: per
    /// client for real CCCDs, the shared value for CCCDs loaded as plain stored attributes.
    func configuration(of c: CharacteristicRecord, _ client: GATTLink) -> ClientCharacteristicConfiguration {
        configuration(of: c, client.clientConfigurations)
    }

    /// The same, from the client's own table: what the per-notification path passes, so
    /// that it reads one field of the client's state instead of copying all of it.
    func configuration(of c: CharacteristicRecord,
                       _ configurations: [AttributeHandle: ClientCharacteristicConfiguration])
        -> ClientCharacteristicConfiguration {
        guard let h = c.clientConfigurationHandle, let i = database.index(of: h) else { return [] }
        let a = database.attributes[i]
        switch a.kind {
        case .clientCharacteristicConfiguration: return configurations[h] ?? []
        case .stored where a.value.count >= 2:
            return ClientCharacteristicConfiguration(rawValue: UInt16(a.value[0]) | UInt16(a.value[1]) << 8)
        default: return []
        }
    }

    // MARK: - Application hand-off

    mutating func suspendForRead(_ handle: AttributeHandle, offset: Int = 0, request: ArraySlice<UInt8>,
                                 resolved: [AttributeHandle: [UInt8]]?, _ connection: ConnectionID,
                                 _ client: inout GATTLink, now: MonotonicTime, _ out: inout GATTServerOutput) {
        let id = ApplicationRequestID(rawValue: makeID())
        let deadline = now + configuration.applicationTimeout
        client.pending = PendingApplicationRequest(id: id, deadline: deadline, kind: .read(handle), request: Array(request),
                                                   handle: handle, resolved: resolved ?? [:])
        out.events.append(.readRequested(ApplicationReadRequest(id: id, connection: connection, handle: handle,
                                                                deadline: deadline, offset: offset)))
    }

    mutating func handOffWrites(_ writes: [ApplicationWrite], kind: PendingApplicationRequest.Kind?,
                                request: ArraySlice<UInt8>, _ connection: ConnectionID,
                                _ client: inout GATTLink, now: MonotonicTime, _ out: inout GATTServerOutput) {
        let id = ApplicationRequestID(rawValue: makeID())
        let deadline = now + configuration.applicationTimeout
        if let kind {
            client.pending = PendingApplicationRequest(id: id, deadline: deadline, kind: kind, request: Array(request),
                                                       handle: writes.first?.handle ?? .reserved, resolved: [:])
        }
        out.events.append(.writeRequested(ApplicationWriteRequest(id: id, connection: connection, writes: writes,
                                                                  expectsResponse: kind != nil, deadline: deadline)))
    }
}
