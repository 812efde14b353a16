extension HCIHost {
    mutating func enqueueInitialization(_ step: InitializationStep) {
        let purpose = CommandFlowControl.Purpose.initialization(step)
        switch step {
        case .reset: commands.enqueue(Reset(), purpose)
        case .readLocalSupportedCommands: commands.enqueue(ReadLocalSupportedCommands(), purpose)
        case .readLocalSupportedFeatures: commands.enqueue(ReadLocalSupportedFeatures(), purpose)
        case .setEventMask: commands.enqueue(SetEventMask(), purpose)
        case .leSetEventMask:
            // LE Long Term Key Request (bit 4) only when a Security Manager answers it.
            let mask = LESetEventMask.leHost | (configuration.pairingEnabled ? LESetEventMask.longTermKeyRequest : 0)
            commands.enqueue(LESetEventMask(mask: mask), purpose)
        case .leReadLocalSupportedFeatures: commands.enqueue(LEReadLocalSupportedFeatures(), purpose)
        case .leReadBufferSize: commands.enqueue(LEReadBufferSize(), purpose)
        case .leReadBufferSizeV2: commands.enqueue(LEReadBufferSizeV2(), purpose)
        case .readBufferSize: commands.enqueue(ReadBufferSize(), purpose)
        case .readBDADDR: commands.enqueue(ReadBDADDR(), purpose)
        case .leSetRandomAddress:
            if let address = randomAddress {
                commands.enqueue(LESetRandomAddress(address: address), purpose)
            }
        }
    }

    /// Takes in one step's return parameters (Status already checked) and starts the next step.
    mutating func continueInitialization(after step: InitializationStep, opcode: HCIOpcode,
                                         returnParameters: ArraySlice<UInt8>) {
        do throws(HCIDecodingError) {
            let next: InitializationStep?
            switch step {
            case .reset:
                next = .readLocalSupportedCommands
            case .readLocalSupportedCommands:
                discovered.supportedCommands = try ReadLocalSupportedCommands.decodeReturnParameters(returnParameters)
                next = .readLocalSupportedFeatures
            case .readLocalSupportedFeatures:
                discovered.lmpFeatures = try ReadLocalSupportedFeatures.decodeReturnParameters(returnParameters)
                next = .setEventMask
            case .setEventMask:
                next = .leSetEventMask
            case .leSetEventMask:
                next = .leReadLocalSupportedFeatures
            case .leReadLocalSupportedFeatures:
                discovered.leFeatures = try LEReadLocalSupportedFeatures.decodeReturnParameters(returnParameters)
                next = discovered.supportedCommands.leReadBufferSizeV2 ? .leReadBufferSizeV2 : .leReadBufferSize
            case .leReadBufferSize:
                let sizes = try LEReadBufferSize.decodeReturnParameters(returnParameters)
                discovered.aclDataPacketLength = Int(sizes.leACLDataPacketLength)
                discovered.totalACLDataPackets = Int(sizes.totalNumLEACLDataPackets)
                next = sizes.leACLDataPacketLength == 0 ? .readBufferSize : .readBDADDR
            case .leReadBufferSizeV2:
                let sizes = try LEReadBufferSizeV2.decodeReturnParameters(returnParameters)
                discovered.aclDataPacketLength = Int(sizes.leACLDataPacketLength)
                discovered.totalACLDataPackets = Int(sizes.totalNumLEACLDataPackets)
                next = sizes.leACLDataPacketLength == 0 ? .readBufferSize : .readBDADDR
            case .readBufferSize:
                let sizes = try ReadBufferSize.decodeReturnParameters(returnParameters)
                discovered.aclDataPacketLength = Int(sizes.aclDataPacketLength)
                discovered.totalACLDataPackets = Int(sizes.totalNumACLDataPackets)
                next = .readBDADDR
            case .readBDADDR:
                discovered.publicAddress = try ReadBDADDR.decodeReturnParameters(returnParameters)
                discovered.usesPublicAddress = configuration.prefersPublicAddress && discovered.publicAddress.rawValue != 0
                next = randomAddress == nil ? nil : .leSetRandomAddress
            case .leSetRandomAddress:
                next = nil
            }
            if let next {
                enqueueInitialization(next)
            } else {
                finishInitialization()
            }
        } catch {
            stop(.malformedReturnParameters(opcode, error))
        }
    }

    mutating func finishInitialization() {
        guard discovered.aclDataPacketLength > 0, discovered.totalACLDataPackets > 0 else {
            // A controller that can hold no ACL packet can carry no connection.
            stop(.unsupportedController("it reports no LE ACL data buffers"))
            return
        }
        acl.configure(packetLength: discovered.aclDataPacketLength, totalPackets: discovered.totalACLDataPackets)
        let info = ControllerInfo(
            publicAddress: discovered.publicAddress, randomAddress: randomAddress,
            leFeatures: discovered.leFeatures, lmpFeatures: discovered.lmpFeatures,
            supportedCommands: discovered.supportedCommands,
            aclDataPacketLength: discovered.aclDataPacketLength, totalACLDataPackets: discovered.totalACLDataPackets,
            usesExtendedCommands: configuration.commandSet == .automatic && discovered.leFeatures.contains(.extendedAdvertising))
        controller = info
        phase = .ready
        output.events.append(.ready(info))
        if let id = resetRequest {
            resetRequest = nil
            complete(id, .success(.done))
        }
    }
}
