extension HCIHost {
    var usesExtendedCommands: Bool { controller?.usesExtendedCommands ?? false }

    mutating func start(_ request: HostRequest, id: HostRequestID, at now: MonotonicTime) {
        let own = ownAddressType
        switch request {
        case .startScanning(let scan):
            if usesExtendedCommands {
                let phy = LESetExtendedScanParameters.PHYParameters(
                    scanType: scan.active ? 1 : 0, scanInterval: scan.interval, scanWindow: scan.window)
                commands.enqueue(LESetExtendedScanParameters(ownAddressType: own, le1M: phy), .request(id, last: false))
                commands.enqueue(LESetExtendedScanEnable(enable: true, filterDuplicates: scan.filterDuplicates ? 1 : 0),
                                 .request(id, last: true))
            } else {
                commands.enqueue(LESetScanParameters(scanType: scan.active ? 1 : 0, scanInterval: scan.interval,
                                                     scanWindow: scan.window, ownAddressType: own),
                                 .request(id, last: false))
                commands.enqueue(LESetScanEnable(enable: true, filterDuplicates: scan.filterDuplicates),
                                 .request(id, last: true))
            }
        case .stopScanning:
            extendedReports.reset()
            if usesExtendedCommands {
                commands.enqueue(LESetExtendedScanEnable(enable: false), .request(id, last: true))
            } else {
                commands.enqueue(LESetScanEnable(enable: false), .request(id, last: true))
            }
        case .startAdvertising(let advertising):
            startAdvertising(advertising, id: id)
        case .stopAdvertising:
            if usesExtendedCommands {
                commands.enqueue(LESetExtendedAdvertisingEnable(enable: false, sets: []), .request(id, last: true))
            } else {
                commands.enqueue(LESetAdvertisingEnable(enable: false), .request(id, last: true))
            }
        case .setAdvertisingEnabled(let enabled):
            if usesExtendedCommands {
                // Set 0 is the one startAdvertising configures.
                commands.enqueue(LESetExtendedAdvertisingEnable(enable: enabled, sets: enabled ? [.init(advertisingHandle: 0)] : []),
                                 .request(id, last: true))
            } else {
                commands.enqueue(LESetAdvertisingEnable(enable: enabled), .request(id, last: true))
            }
        case .connect(let peer, let peerAddressType, let parameters, let timeout):
            guard pendingConnection == nil else {
                complete(id, .failure(.busy("a connection is already being initiated")))
                return
            }
            if usesExtendedCommands {
                commands.enqueue(LEExtendedCreateConnection(
                    ownAddressType: own, peerAddressType: peerAddressType, peerAddress: peer,
                    le1M: .init(connection: parameters)), .connect(id))
            } else {
                commands.enqueue(LECreateConnection(peerAddressType: peerAddressType, peerAddress: peer,
                                                    ownAddressType: own, parameters: parameters), .connect(id))
            }
            pendingConnection = PendingConnection(id: id, deadline: now + timeout, ownAddressType: own)
        case .cancelConnect:
            guard var pending = pendingConnection, pending.cancellation == nil else {
                complete(id, .failure(.invalidRequest("no connection is being initiated")))
                return
            }
            pending.cancellation = .connectionCancelled
            pendingConnection = pending
            commands.enqueue(LECreateConnectionCancel(), .cancelConnect(id))
        case .disconnect(let handle, let reason):
            requestDisconnect(handle, reason: reason, id: id, at: now)
        case .sendL2CAP(let handle, let channel, let payload):
            guard connections[handle] != nil else {
                complete(id, .failure(.unknownConnection(handle)))
                return
            }
            if let refusal = queueL2CAP(payload[...], on: handle, channel: channel) {
                complete(id, .failure(refusal))
            } else {
                complete(id, .success(.done))
            }
        case .startEncryption(let handle, let random, let ediv, let key):
            guard let connection = connections[handle] else {
                complete(id, .failure(.unknownConnection(handle)))
                return
            }
            guard connection.info.role == .central else {
                complete(id, .failure(.invalidRequest("only the central starts encryption (Vol 4 Part E §7.8.24)")))
                return
            }
            commands.enqueue(LEEnableEncryption(connectionHandle: handle, random: random, encryptedDiversifier: ediv,
                                                longTermKey: key), .request(id, last: true))
        case .longTermKeyReply(let handle, let key):
            guard connections[handle] != nil else {
                complete(id, .failure(.unknownConnection(handle)))
                return
            }
            commands.enqueue(LELongTermKeyRequestReply(connectionHandle: handle, longTermKey: key), .request(id, last: true))
        case .longTermKeyNegativeReply(let handle):
            guard connections[handle] != nil else {
                complete(id, .failure(.unknownConnection(handle)))
                return
            }
            commands.enqueue(LELongTermKeyRequestNegativeReply(connectionHandle: handle), .request(id, last: true))
        case .rawCommand(let opcode, let parameters):
            guard parameters.count <= 255 else {
                complete(id, .failure(.invalidRequest("command parameters exceed 255 bytes")))
                return
            }
            commands.enqueueRaw(opcode: opcode, parameters: parameters, .rawCommand(id))
        case .reset:
            resetController(id)
        }
    }

    mutating func startAdvertising(_ advertising: AdvertisingConfiguration, id: HostRequestID) {
        let own = ownAddressType
        guard let data = LESetAdvertisingData(data: advertising.data),
              let scanResponse = LESetScanResponseData(data: advertising.scanResponse) else {
            complete(id, .failure(.invalidRequest("advertising data and scan response must each fit 31 bytes")))
            return
        }
        if usesExtendedCommands {
            let properties: LESetExtendedAdvertisingParameters.EventProperties =
                advertising.connectable ? [.connectable, .scannable, .legacy] : [.scannable, .legacy]
            commands.enqueue(LESetExtendedAdvertisingParameters(
                properties: properties, primaryIntervalMin: UInt32(advertising.interval),
                primaryIntervalMax: UInt32(advertising.interval), ownAddressType: own), .request(id, last: false))
            if let address = randomAddress {
                // Advertising sets do not use the address from LE Set Random Address.
                commands.enqueue(LESetAdvertisingSetRandomAddress(advertisingHandle: 0, address: address),
                                 .request(id, last: false))
            }
            commands.enqueue(LESetExtendedAdvertisingData(data: advertising.data)!, .request(id, last: false))
            commands.enqueue(LESetExtendedScanResponseData(data: advertising.scanResponse)!, .request(id, last: false))
            commands.enqueue(LESetExtendedAdvertisingEnable(enable: true, sets: [.init(advertisingHandle: 0)]),
                             .request(id, last: true))
        } else {
            commands.enqueue(LESetAdvertisingParameters(
                intervalMin: advertising.interval, intervalMax: advertising.interval,
                advertisingType: advertising.connectable ? 0x00 : 0x02, ownAddressType: own), .request(id, last: false))
            commands.enqueue(data, .request(id, last: false))
            commands.enqueue(scanResponse, .request(id, last: false))
            commands.enqueue(LESetAdvertisingEnable(enable: true), .request(id, last: true))
        }
    }
}
