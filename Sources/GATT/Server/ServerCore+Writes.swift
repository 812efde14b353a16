import ATT

extension ServerCore {
    /// The value a write would leave is acceptable for the attribute's kind.
    func validateWrite(_ index: Int, _ value: ArraySlice<UInt8>, _ client: GATTLink) -> ATTErrorCode? {
        let a = database.attributes[index]
        switch a.kind {
        case .stored, .dynamic, .databaseHash:
            return value.count > a.maximumLength ? .invalidAttributeValueLength : nil
        case .clientCharacteristicConfiguration:
            guard value.count == 2 else { return .invalidAttributeValueLength }
            let v = ClientCharacteristicConfiguration(rawValue: UInt16(value[value.startIndex]) | UInt16(value[value.startIndex + 1]) << 8)
            // Reserved bits cannot be honoured: the write is rejected for a reason other
            // than permissions (Core Spec Supplement Part B §1.2, 0xFC).
            guard v.isSubset(of: .defined) else { return .writeRequestRejected }
            // Notification and indication only where the properties allow them (0xFD).
            guard let c = database.characteristic(containing: a.handle) else { return v.isEmpty ? nil : .cccdImproperlyConfigured }
            if v.contains(.notification) && !c.properties.contains(.notify) { return .cccdImproperlyConfigured }
            if v.contains(.indication) && !c.properties.contains(.indicate) { return .cccdImproperlyConfigured }
            return nil
        case .clientSupportedFeatures:
            guard !value.isEmpty else { return .invalidAttributeValueLength }
            // A client may not clear a feature it has enabled (Vol 3 Part G §7.2).
            let new = ClientSupportedFeatures(rawValue: value[value.startIndex])
            return client.supportedFeatures.intersection(.defined).isSubset(of: new) ? nil : .valueNotAllowed
        }
    }

    /// Applies a validated write of a non-dynamic attribute.
    mutating func commitWrite(_ index: Int, _ value: ArraySlice<UInt8>, _ connection: ConnectionID,
                              _ client: inout GATTLink, _ out: inout GATTServerOutput) {
        // Only scalars are read here: holding a copy of the attribute would force a
        // copy-on-write of its value below.
        let kind = database.attributes[index].kind
        let handle = database.attributes[index].handle
        switch kind {
        case .stored:
            // A write replaces the whole value.
            database.setValue(value, at: index)
            out.events.append(.valueWritten(connection, handle))
        case .clientCharacteristicConfiguration:
            let v = ClientCharacteristicConfiguration(rawValue: UInt16(value[value.startIndex]) | UInt16(value[value.startIndex + 1]) << 8)
            client.clientConfigurations[handle] = v.isEmpty ? nil : v
            let characteristic = database.characteristic(containing: handle)?.valueHandle ?? handle
            out.events.append(.subscriptionChanged(connection, characteristic: characteristic, v))
        case .clientSupportedFeatures:
            client.supportedFeatures.formUnion(ClientSupportedFeatures(rawValue: value[value.startIndex]).intersection(.defined))
        case .dynamic, .databaseHash:
            break
        }
    }

    mutating func writeRequest(_ r: WriteRequest, raw: ArraySlice<UInt8>, _ connection: ConnectionID,
                               _ client: inout GATTLink, now: MonotonicTime, _ out: inout GATTServerOutput) {
        guard let i = database.index(of: r.handle) else { return fail(.invalidHandle, r.handle, connection, &client, &out) }
        if let code = writeError(i, connection, client.security) { return fail(code, r.handle, connection, &client, &out) }
        if let code = validateWrite(i, r.value, client) { return fail(code, r.handle, connection, &client, &out) }
        if database.attributes[i].kind == .dynamic {
            return handOffWrites([ApplicationWrite(handle: r.handle, offset: 0, value: Array(r.value))], kind: .write,
                                 request: raw, connection, &client, now: now, &out)
        }
        commitWrite(i, r.value, connection, &client, &out)
        respond(WriteResponse(), connection, &client, &out)
    }

    /// Write Command and verified Signed Write Command: no response, errors are silent.
    mutating func writeCommand(_ handle: AttributeHandle, _ value: ArraySlice<UInt8>, security: LinkSecurity,
                               _ connection: ConnectionID, _ client: inout GATTLink,
                               now: MonotonicTime, _ out: inout GATTServerOutput) {
        guard let i = database.index(of: handle), writeError(i, connection, security) == nil,
              validateWrite(i, value, client) == nil else { return }
        if database.attributes[i].kind == .dynamic {
            return handOffWrites([ApplicationWrite(handle: handle, offset: 0, value: Array(value))], kind: nil,
                                 request: [], connection, &client, now: now, &out)
        }
        commitWrite(i, value, connection, &client, &out)
    }

    /// Signed Write Command (Vol 3 Part H §2.4.5): verified with the client's CSRK, the
    /// counter must grow, and anything wrong drops the command silently.
    mutating func signedWrite(_ c: SignedWriteCommand, raw: ArraySlice<UInt8>, _ connection: ConnectionID,
                              _ client: inout GATTLink, now: MonotonicTime, _ out: inout GATTServerOutput) {
        guard let key = client.signingKey,
              let characteristic = database.characteristic(valueHandle: c.handle),
              characteristic.properties.contains(.authenticatedSignedWrites),
              client.lastSignCounter.map({ c.signCounter > $0 }) ?? true,
              ATTSignature.verify(signedPDU: raw, csrk: key)
        else {
            out.events.append(.signedWriteDropped(connection, c.handle))
            return
        }
        client.lastSignCounter = c.signCounter
        // A valid signature stands in for an authenticated link when the key was
        // distributed over an authenticated pairing.
        var security = client.security
        if client.signingKeyAuthenticated { security.authenticated = true; security.encrypted = true }
        writeCommand(c.handle, c.value, security: security, connection, &client, now: now, &out)
    }

    mutating func prepareWrite(_ r: PrepareWriteRequest, _ connection: ConnectionID,
                               _ client: inout GATTLink, _ out: inout GATTServerOutput) {
        guard let i = database.index(of: r.handle) else { return fail(.invalidHandle, r.handle, connection, &client, &out) }
        if let code = writeError(i, connection, client.security) { return fail(code, r.handle, connection, &client, &out) }
        guard client.prepareQueue.append(handle: r.handle, offset: r.offset, value: r.partValue) else {
            return fail(.prepareQueueFull, r.handle, connection, &client, &out)
        }
        respond(PrepareWriteResponse(handle: r.handle, offset: r.offset, partValue: r.partValue), connection, &client, &out)
    }

    /// Execute Write: every queued write is validated before any is applied, so the
    /// request succeeds or fails as a whole.
    mutating func executeWrite(_ r: ExecuteWriteRequest, raw: ArraySlice<UInt8>, _ connection: ConnectionID,
                               _ client: inout GATTLink, now: MonotonicTime, _ out: inout GATTServerOutput) {
        let entries = client.prepareQueue.entries
        let handles = client.prepareQueue.handles
        client.prepareQueue.removeAll()
        guard r.flags == .write, !entries.isEmpty else { return respond(ExecuteWriteResponse(), connection, &client, &out) }

        // Writes to more than one attribute are a Reliable Write: every characteristic
        // value involved must allow it (Vol 3 Part G §4.9.5, extended property bit 0).
        if handles.count > 1 {
            for h in handles {
                if let c = database.characteristic(valueHandle: h), !c.extendedProperties.contains(.reliableWrite) {
                    return fail(.requestNotSupported, h, connection, &client, &out)
                }
            }
        }

        var stored: [(index: Int, value: [UInt8])] = []
        var application: [ApplicationWrite] = []
        for h in handles {
            guard let i = database.index(of: h) else { return fail(.invalidHandle, h, connection, &client, &out) }
            if database.attributes[i].kind == .dynamic {
                for e in entries where e.handle == h {
                    // The application sees parts, never the whole value, so the attribute's
                    // maximum length (at most 512 octets, Vol 3 Part F §3.2.9) is checked here.
                    guard Int(e.offset) + e.value.count <= database.attributes[i].maximumLength else {
                        return fail(.invalidAttributeValueLength, h, connection, &client, &out)
                    }
                    application.append(ApplicationWrite(handle: h, offset: Int(e.offset), value: e.value))
                }
                continue
            }
            var working = Array(value(i, client, nil) ?? [])
            for e in entries where e.handle == h {
                // Each part continues the value at its offset: a long write of N octets
                // leaves exactly N octets.
                guard Int(e.offset) <= working.count else { return fail(.invalidOffset, h, connection, &client, &out) }
                working.replaceSubrange(Int(e.offset)..., with: e.value)
            }
            if let code = validateWrite(i, working[...], client) { return fail(code, h, connection, &client, &out) }
            stored.append((i, working))
        }
        if !application.isEmpty {
            return handOffWrites(application, kind: .execute(stored: stored), request: raw, connection, &client,
                                 now: now, &out)
        }
        for (i, v) in stored { commitWrite(i, v[...], connection, &client, &out) }
        respond(ExecuteWriteResponse(), connection, &client, &out)
    }
}
