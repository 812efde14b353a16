extension HCIHost {
    mutating func receiveEvent(_ bytes: ArraySlice<UInt8>, at now: MonotonicTime) {
        let event: HCIEvent
        do {
            event = try HCIEvent(decoding: bytes)
        } catch {
            warn(.malformedEvent(error))
            return
        }
        switch event {
        case .commandComplete(let complete):
            let status = complete.returnParameters.first.map { HCIStatus($0) } ?? .success
            finishCommand(complete.opcode, complete.numberOfCommandPackets, status: status,
                          returnParameters: complete.returnParameters, isStatusEvent: false, at: now)
        case .commandStatus(let status):
            finishCommand(status.opcode, status.numberOfCommandPackets, status: status.status,
                          returnParameters: [], isStatusEvent: true, at: now)
        case .numberOfCompletedPackets(let completed):
            for entry in completed.entries {
                if let warning = acl.completed(handle: entry.handle, count: entry.completedPackets) { warn(warning) }
            }
            // A draining link's Disconnect goes once its last packet is completed; flush checks.
        case .disconnectionComplete(let event):
            disconnectionComplete(event)
        case .leConnectionComplete(let event):
            connectionComplete(event)
        case .leAdvertisingReport(let reports):
            for report in reports {
                output.events.append(.advertisingReport(AdvertisingReport(legacy: report)))
            }
        case .leExtendedAdvertisingReport(let reports):
            for report in reports {
                if let whole = extendedReports.receive(report) {
                    output.events.append(.advertisingReport(whole))
                }
            }
        case .leDataLengthChange(let change):
            output.events.append(.dataLengthChanged(change))
        case .lePHYUpdateComplete(let update):
            output.events.append(.phyUpdated(update))
        case .encryptionChange(let change):
            guard connections[change.handle] != nil else {
                warn(.eventForUnknownHandle("Encryption Change", change.handle))
                return
            }
            if change.status.isSuccess { connections[change.handle]?.isEncrypted = change.encryptionEnabled != 0 }
            output.events.append(.encryptionChanged(change))
        case .unknownLEMeta(let subevent, let parameters):
            if subevent == LEConnectionUpdateComplete.subevent {
                do {
                    output.events.append(.connectionParametersUpdated(try LEConnectionUpdateComplete(decoding: parameters)))
                } catch {
                    warn(.malformedEvent(error))
                }
            } else if subevent == LELongTermKeyRequest.subevent, configuration.pairingEnabled {
                do {
                    let request = try LELongTermKeyRequest(decoding: parameters)
                    guard connections[request.handle] != nil else {
                        warn(.eventForUnknownHandle("LE Long Term Key Request", request.handle))
                        return
                    }
                    output.events.append(.longTermKeyRequested(request))
                } catch {
                    warn(.malformedEvent(error))
                }
            }
        case .unknown(let code, let parameters):
            // Hardware Error (0x10): the controller needs a reset; nothing it says can be trusted.
            if code == 0x10 { stop(.hardwareError(parameters.first ?? 0)) }
            if code == EncryptionKeyRefreshComplete.code {
                do {
                    let refresh = try EncryptionKeyRefreshComplete(decoding: parameters)
                    guard connections[refresh.handle] != nil else {
                        warn(.eventForUnknownHandle("Encryption Key Refresh Complete", refresh.handle))
                        return
                    }
                    output.events.append(.encryptionKeyRefreshed(refresh))
                } catch {
                    warn(.malformedEvent(error))
                }
            }
        }
    }

    /// Legacy advertising report event types mapped to extended ones (Vol 4 Part E §7.7.65.13).
    static func extendedEventType(legacy: UInt8) -> UInt16 {
        switch legacy {
        case 0x00: 0x0013  // ADV_IND
        case 0x01: 0x0015  // ADV_DIRECT_IND
        case 0x02: 0x0012  // ADV_SCAN_IND
        case 0x03: 0x0010  // ADV_NONCONN_IND
        case 0x04: 0x001B  // SCAN_RSP to ADV_IND (the common case)
        default: 0x0010
        }
    }

    /// How long to wait for LE Connection Complete after a successful cancel.
    static let cancelGracePeriod = Duration.seconds(1)

    mutating func finishCommand(_ opcode: HCIOpcode, _ credits: UInt8, status: HCIStatus,
                                returnParameters: ArraySlice<UInt8>, isStatusEvent: Bool,
                                at now: MonotonicTime) {
        guard let command = commands.finish(opcode: opcode, numberOfCommandPackets: credits) else {
            if opcode.rawValue != 0 { warn(.unexpectedCommandCompletion(opcode)) }
            return
        }
        switch command.purpose {
        case .initialization(let step):
            guard status.isSuccess else {
                stop(.commandFailed(opcode, status))
                return
            }
            continueInitialization(after: step, opcode: opcode, returnParameters: returnParameters)
        case .request(let id, let last):
            if !status.isSuccess {
                commands.dropQueued(of: id)
                complete(id, .failure(.commandFailed(opcode, status)))
            } else if last {
                complete(id, .success(.done))
            }
        case .rawCommand(let id):
            if isStatusEvent && !status.isSuccess {
                complete(id, .failure(.commandFailed(opcode, status)))
            } else {
                complete(id, .success(.returnParameters(Array(returnParameters))))
            }
        case .connect(let id):
            if !status.isSuccess {
                pendingConnection = nil
                complete(id, .failure(.commandFailed(opcode, status)))
            }
        case .disconnect(let handle):
            if !status.isSuccess { apply(.commandFailed(status), to: handle) }
        case .cancelConnect(let id):
            if status.isSuccess {
                pendingConnection?.cancelGraceDeadline = now + Self.cancelGracePeriod
            }
            if let id {
                complete(id, status.isSuccess ? .success(.done) : .failure(.commandFailed(opcode, status)))
            }
        case .internal:
            break
        }
    }

    mutating func connectionComplete(_ event: LEConnectionComplete) {
        var pending: PendingConnection?
        if event.role == .central || !event.status.isSuccess {
            pending = pendingConnection
            pendingConnection = nil
        }
        guard event.status.isSuccess else {
            guard let pending else { return }  // a failed advertising connection: nothing waits on it
            // Unknown Connection Identifier (0x02) is how a cancelled attempt ends (§7.8.13).
            let error = pending.cancellation ?? .connectionFailed(event.status)
            complete(pending.id, .failure(error))
            return
        }
        guard connections[event.handle] == nil else {
            // Taking it would reset the handle's flow-control count under packets in flight.
            warn(.duplicateConnection(event.handle))
            if let pending { complete(pending.id, .failure(.connectionFailed(.noControllerStatus))) }
            return
        }
        let info = ConnectionInfo(
            handle: event.handle, role: event.role, peerAddress: event.peerAddress,
            peerAddressType: event.peerAddressType,
            ownAddressType: pending?.ownAddressType ?? ownAddressType,
            connectionInterval: event.connectionInterval, peripheralLatency: event.peripheralLatency,
            supervisionTimeout: event.supervisionTimeout)
        connections[event.handle] = HostConnection(info: info)
        acl.open(event.handle)
        output.events.append(.connected(info))
        if let pending { complete(pending.id, .success(.connected(info))) }
    }

    mutating func disconnectionComplete(_ event: DisconnectionComplete) {
        guard let connection = connections[event.handle] else {
            warn(.eventForUnknownHandle("Disconnection Complete", event.handle))
            return
        }
        guard event.status.isSuccess else {
            apply(.commandFailed(event.status), to: event.handle)
            return
        }
        let unsent = acl.queuedCount(on: event.handle)
        if unsent > 0 {
            // Data that never reached the controller goes with the link: say so.
            warn(.undeliveredAtDisconnect(handle: event.handle, unsent: unsent,
                                          unacknowledged: acl.inFlight(on: event.handle)))
        }
        connections[event.handle] = nil
        acl.close(event.handle)
        reassembler.reset(handle: event.handle, key: 0)
        output.events.append(.disconnected(handle: event.handle, reason: event.reason))
        if let id = connection.disconnect.requestID {
            complete(id, .success(.disconnected(reason: event.reason)))
        }
    }
}
