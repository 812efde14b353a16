import ATT

extension ServerCore {
    /// Serves one request or command of the peer (Vol 3 Part F §3.4). `resolved` carries
    /// dynamic values the application supplied when a request is being processed again.
    ///
    /// The switch names every PDU a client can send, so a new one fails to compile here
    /// until it is served.
    mutating func serve(_ pdu: ATTClientPDU, raw: ArraySlice<UInt8>, resolved: [AttributeHandle: [UInt8]]?,
                        _ connection: ConnectionID, _ client: inout GATTLink,
                        now: MonotonicTime, _ out: inout GATTServerOutput) {
        switch pdu {
        case .exchangeMTURequest:
            respond(ExchangeMTUResponse(serverRxMTU: client.bearer.rxMTU), connection, &client, &out)
        case .findInformationRequest(let r):
            findInformation(r, connection, &client, &out)
        case .findByTypeValueRequest(let r):
            findByTypeValue(r, connection, &client, &out)
        case .readByTypeRequest(let r):
            readByType(r, raw: raw, resolved: resolved, connection, &client, now: now, &out)
        case .readByGroupTypeRequest(let r):
            readByGroupType(r, raw: raw, resolved: resolved, connection, &client, now: now, &out)
        case .readRequest(let r):
            read(r.handle, offset: nil, raw: raw, resolved: resolved, connection, &client, now: now, &out)
        case .readBlobRequest(let r):
            read(r.handle, offset: Int(r.offset), raw: raw, resolved: resolved, connection, &client, now: now, &out)
        case .readMultipleRequest(let r):
            readMultiple(r.handleData, variable: false, raw: raw, resolved: resolved, connection, &client, now: now, &out)
        case .readMultipleVariableRequest(let r):
            readMultiple(r.handleData, variable: true, raw: raw, resolved: resolved, connection, &client, now: now, &out)
        case .writeRequest(let r):
            writeRequest(r, raw: raw, connection, &client, now: now, &out)
        case .prepareWriteRequest(let r):
            prepareWrite(r, connection, &client, &out)
        case .executeWriteRequest(let r):
            executeWrite(r, raw: raw, connection, &client, now: now, &out)
        case .writeCommand(let c):
            writeCommand(c.handle, c.value, security: client.security, connection, &client, now: now, &out)
        case .signedWriteCommand(let c):
            signedWrite(c, raw: raw, connection, &client, now: now, &out)
        case .handleValueConfirmation:
            // The bearer settles confirmations itself and reports them as
            // `ATTBearerEvent.confirmation`, which GATTServer handles; none comes here.
            break
        }
    }

    // MARK: - Discovery

    mutating func findInformation(_ r: FindInformationRequest, _ connection: ConnectionID,
                                  _ client: inout GATTLink, _ out: inout GATTServerOutput) {
        guard r.range.isValid else { return fail(.invalidHandle, r.range.start, connection, &client, &out) }
        let attributes = database.attributes
        var i = database.firstIndex(atOrAfter: r.range.start)
        guard i < attributes.count, attributes[i].handle <= r.range.end else {
            return fail(.attributeNotFound, r.range.start, connection, &client, &out)
        }
        let short = attributes[i].type.attForm.width == .bits16
        let maxEntries = (client.bearer.mtu - 2) / (short ? 4 : 18)
        scratch.removeAll(keepingCapacity: true)
        var n = 0
        while i < attributes.count, attributes[i].handle <= r.range.end, n < maxEntries {
            let type = attributes[i].type.attForm
            guard (type.width == .bits16) == short else { break }
            appendHandle(attributes[i].handle, to: &scratch)
            type.append(to: &scratch)
            n += 1
            i += 1
        }
        respond(FindInformationResponse(format: short ? .uuid16 : .uuid128, data: scratch[...]), connection, &client, &out)
    }

    mutating func findByTypeValue(_ r: FindByTypeValueRequest, _ connection: ConnectionID,
                                  _ client: inout GATTLink, _ out: inout GATTServerOutput) {
        // A start handle of 0 is Invalid Handle, as any invalid range is.
        guard r.range.isValid else { return fail(.invalidHandle, r.range.start, connection, &client, &out) }
        let type = BluetoothUUID(r.attributeType)
        let attributes = database.attributes
        let maxEntries = (client.bearer.mtu - 1) / 4
        scratch.removeAll(keepingCapacity: true)
        var n = 0
        var i = database.firstIndex(atOrAfter: r.range.start)
        while i < attributes.count, attributes[i].handle <= r.range.end, n < maxEntries {
            let a = attributes[i]
            i += 1
            // Only values the server holds can be compared; dynamic ones never match.
            guard a.type == type, let v = value(i - 1, client, nil), v.elementsEqual(r.value) else { continue }
            appendHandle(a.handle, to: &scratch)
            appendHandle(a.groupEnd ?? a.handle, to: &scratch)
            n += 1
        }
        guard n > 0 else { return fail(.attributeNotFound, r.range.start, connection, &client, &out) }
        respond(FindByTypeValueResponse(data: scratch[...]), connection, &client, &out)
    }

    mutating func readByType(_ r: ReadByTypeRequest, raw: ArraySlice<UInt8>, resolved: [AttributeHandle: [UInt8]]?,
                             _ connection: ConnectionID, _ client: inout GATTLink,
                             now: MonotonicTime, _ out: inout GATTServerOutput) {
        guard r.range.isValid else { return fail(.invalidHandle, r.range.start, connection, &client, &out) }
        guard let entryLength = gatherByType(r.range, r.attributeType, withGroupEnd: false, raw: raw, resolved: resolved,
                                             connection, &client, now: now, &out)
        else { return }
        if r.attributeType == GATTAttributeType.databaseHash { client.awareness = .aware }
        respond(ReadByTypeResponse(length: entryLength, data: scratch[...]), connection, &client, &out)
    }

    mutating func readByGroupType(_ r: ReadByGroupTypeRequest, raw: ArraySlice<UInt8>,
                                  resolved: [AttributeHandle: [UInt8]]?, _ connection: ConnectionID,
                                  _ client: inout GATTLink, now: MonotonicTime,
                                  _ out: inout GATTServerOutput) {
        guard r.range.isValid else { return fail(.invalidHandle, r.range.start, connection, &client, &out) }
        guard r.attributeType == GATTAttributeType.primaryService || r.attributeType == GATTAttributeType.secondaryService
        else { return fail(.unsupportedGroupType, r.range.start, connection, &client, &out) }
        guard let entryLength = gatherByType(r.range, r.attributeType, withGroupEnd: true, raw: raw, resolved: resolved,
                                             connection, &client, now: now, &out)
        else { return }
        respond(ReadByGroupTypeResponse(length: entryLength, data: scratch[...]), connection, &client, &out)
    }

    /// Collects into `scratch` the attributes of `type` in `range` whose values share the
    /// first one's length, as Read By Type and Read By Group Type answer (Vol 3 Part F
    /// §3.4.4.2 and §3.4.4.10): each entry is the handle (and the group end handle), then
    /// the value cut to what the MTU and the one-byte length field allow. Returns the
    /// entry length, or nil when it already answered with an error or suspended the
    /// request for an application read.
    private mutating func gatherByType(_ range: AttributeHandleRange, _ type: BluetoothUUID, withGroupEnd: Bool,
                                       raw: ArraySlice<UInt8>, resolved: [AttributeHandle: [UInt8]]?,
                                       _ connection: ConnectionID, _ client: inout GATTLink,
                                       now: MonotonicTime, _ out: inout GATTServerOutput) -> UInt8? {
        let header = withGroupEnd ? 4 : 2
        let mtu = client.bearer.mtu
        let maxValue = min(mtu - 2 - header, 255 - header)
        let count = database.attributes.count
        scratch.removeAll(keepingCapacity: true)
        var firstLength = -1
        var used = 2
        var i = database.firstIndex(atOrAfter: range.start)
        while i < count {
            let handle = database.attributes[i].handle
            guard handle <= range.end else { break }
            defer { i += 1 }
            guard database.attributes[i].type == type else { continue }
            if let code = readError(i, connection, client) {
                if firstLength < 0 {
                    fail(code, handle, connection, &client, &out)
                    return nil
                }
                break
            }
            guard let v = value(i, client, resolved) else {
                // The list stops before a value the application must supply, unless it
                // is the first: then it is fetched and the request served again.
                if firstLength < 0 {
                    suspendForRead(handle, request: raw, resolved: resolved, connection, &client, now: now, &out)
                    return nil
                }
                break
            }
            let length = min(v.count, maxValue)
            if firstLength < 0 {
                firstLength = v.count
            } else if v.count != firstLength || used + header + length > mtu {
                break
            }
            appendHandle(handle, to: &scratch)
            if withGroupEnd { appendHandle(database.attributes[i].groupEnd ?? handle, to: &scratch) }
            scratch.append(contentsOf: v.prefix(length))
            used += header + length
        }
        guard firstLength >= 0 else {
            fail(.attributeNotFound, range.start, connection, &client, &out)
            return nil
        }
        return UInt8(header + min(firstLength, maxValue))
    }

    // MARK: - Reads

    /// Read Request (`offset == nil`) or Read Blob Request.
    mutating func read(_ handle: AttributeHandle, offset: Int?, raw: ArraySlice<UInt8>,
                       resolved: [AttributeHandle: [UInt8]]?, _ connection: ConnectionID,
                       _ client: inout GATTLink, now: MonotonicTime, _ out: inout GATTServerOutput) {
        guard let i = database.index(of: handle) else { return fail(.invalidHandle, handle, connection, &client, &out) }
        if let code = readError(i, connection, client) { return fail(code, handle, connection, &client, &out) }
        guard let v = value(i, client, resolved) else {
            return suspendForRead(handle, offset: offset ?? 0, request: raw, resolved: resolved, connection, &client,
                                  now: now, &out)
        }
        let room = client.bearer.mtu - 1
        guard let offset else {
            return respond(ReadResponse(value: v.prefix(room)), connection, &client, &out)
        }
        // An offset past the end is Invalid Offset, also for an empty value; an offset
        // equal to the length reads nothing.
        guard offset <= v.count else { return fail(.invalidOffset, handle, connection, &client, &out) }
        let start = v.startIndex + offset
        respond(ReadBlobResponse(value: v[start..<min(v.endIndex, start + room)]), connection, &client, &out)
    }

    mutating func readMultiple(_ handleData: ArraySlice<UInt8>, variable: Bool, raw: ArraySlice<UInt8>,
                               resolved: [AttributeHandle: [UInt8]]?, _ connection: ConnectionID,
                               _ client: inout GATTLink, now: MonotonicTime, _ out: inout GATTServerOutput) {
        scratch.removeAll(keepingCapacity: true)
        var k = handleData.startIndex
        while k + 1 < handleData.endIndex {
            let handle = AttributeHandle(UInt16(handleData[k]) | UInt16(handleData[k + 1]) << 8)
            k += 2
            guard let i = database.index(of: handle) else { return fail(.invalidHandle, handle, connection, &client, &out) }
            if let code = readError(i, connection, client) { return fail(code, handle, connection, &client, &out) }
            guard let v = value(i, client, resolved) else {
                return suspendForRead(handle, request: raw, resolved: resolved, connection, &client, now: now, &out)
            }
            if variable { appendHandle(AttributeHandle(UInt16(truncatingIfNeeded: v.count)), to: &scratch) }
            scratch.append(contentsOf: v)
        }
        // Both responses carry at most ATT_MTU - 1 octets of values (Vol 3 Part F §3.4.4.8, §3.4.4.12).
        let room = client.bearer.mtu - 1
        if variable {
            respond(ReadMultipleVariableResponse(data: scratch.prefix(room)), connection, &client, &out)
        } else {
            respond(ReadMultipleResponse(value: scratch.prefix(room)), connection, &client, &out)
        }
    }
}

@inline(__always)
func appendHandle(_ handle: AttributeHandle, to buffer: inout [UInt8]) {
    buffer.append(UInt8(truncatingIfNeeded: handle.rawValue))
    buffer.append(UInt8(truncatingIfNeeded: handle.rawValue >> 8))
}
