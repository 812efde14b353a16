import Foundation
import Testing
@testable import Attune
@testable import Transport

/// Long values, ATT errors, drops while a request is in flight, database changes while
/// connected, and flow control, end to end over the memory transport.
@Suite("Procedures at the edges", .timeLimit(.minutes(10)))
struct ProcedureEdgeTests {
    static let serviceUUID = BluetoothUUID(high: 0x1234_5678_0000_1000, low: 0x8000_0080_5F9B_34FB)
    static let blob = BluetoothUUID(0x2AA0)
    static let slow = BluetoothUUID(0x2AA1)

    struct Rig {
        let radio = MemoryRadio()
        let manager: PeripheralManager
        let published: PublishedService
        let central: CentralManager
        let peripheral: Peripheral
        let characteristics: [Characteristic]

        init() async throws {
            manager = try PeripheralManager(transport: .memory(radio))
            published = try await manager.add(ServiceDefinition(ProcedureEdgeTests.serviceUUID, characteristics: [
                CharacteristicDefinition(ProcedureEdgeTests.blob, properties: [.read, .write],
                                         value: (0..<300).map { UInt8($0 & 0xFF) }, maximumLength: 512),
                CharacteristicDefinition(ProcedureEdgeTests.slow, properties: [.read], dynamic: true),
            ]))
            try await manager.startAdvertising(localName: "Edge")
            central = CentralManager(transport: .memory(radio))
            let ad = try await first(try central.scan(), "advertisement") { $0.localName == "Edge" }
            peripheral = central.peripheral(for: ad)
            try await central.connect(peripheral)
            let service = try #require(try await peripheral.discoverServices([ProcedureEdgeTests.serviceUUID]).first)
            characteristics = try await peripheral.discoverCharacteristics(for: service)
        }

        subscript(uuid: BluetoothUUID) -> Characteristic { characteristics.first { $0.uuid == uuid }! }
    }

    @Test func longValuesUseBlobReadsAndPreparedWrites() async throws {
        let rig = try await Rig()
        let blob = rig[Self.blob]
        #expect(try await rig.peripheral.readValue(for: blob) == (0..<300).map { UInt8($0 & 0xFF) })
        let long = (0..<512).map { UInt8(255 - ($0 & 0xFF)) }
        try await rig.peripheral.writeValue(long, for: blob, type: .withResponse)
        #expect(await rig.manager.value(of: rig.published[Self.blob]!) == long)
        #expect(try await rig.peripheral.readValue(for: blob) == long, "a 511-byte first read continues with Read Blob")
        await #expect(throws: AttuneError.invalidValueLength(513, maximum: 512)) {
            try await rig.peripheral.writeValue(long + [0], for: blob, type: .withResponse)
        }
    }

    @Test func applicationErrorsReachTheCentral() async throws {
        let rig = try await Rig()
        let answer = Task {
            for await request in rig.manager.requests {
                await rig.manager.respond(to: request, withResult: .failure(.insufficientAuthorization))
                return
            }
        }
        await #expect(throws: AttuneError.att(.insufficientAuthorization)) {
            _ = try await rig.peripheral.readValue(for: rig[Self.slow])
        }
        await answer.value
    }

    @Test func dropWhileARequestIsInFlightFailsItWithTheReason() async throws {
        let rig = try await Rig()
        let read = Task { try await rig.peripheral.readValue(for: rig[Self.slow]) }
        // The request reached the application, which never answers; then the link drops.
        _ = try await first(rig.manager.requests, "read request") { _ in true }
        rig.radio.dropLinks(reason: HCIStatus.connectionTimeout)
        await #expect(throws: AttuneError.peripheralDisconnected(.hci(HCIStatus.connectionTimeout))) { _ = try await read.value }
        #expect(await rig.peripheral.state == .disconnected)
        await #expect(throws: AttuneError.notConnected) { _ = try await rig.peripheral.readValue(for: rig[Self.blob]) }
    }

    @Test func serviceChangedWhileConnectedUpdatesTheTree() async throws {
        let rig = try await Rig()
        #expect(try await rig.peripheral.discoverServices().contains { $0.uuid == Self.serviceUUID })
        try await rig.manager.remove(rig.published)
        // No public event marks the client's rediscovery done: look until it is.
        try await eventually("rediscovery after Service Changed") {
            try await !rig.peripheral.discoverServices().contains(where: { $0.uuid == Self.serviceUUID })
        }
        await #expect(throws: AttuneError.self) { _ = try await rig.peripheral.readValue(for: rig[Self.blob]) }
    }

    @Test func inMemoryLinksAreFlowControlled() async throws {
        let (a, b) = MemoryLink.pair(central: (BluetoothAddress(rawValue: 1), .random),
                                     peripheral: (BluetoothAddress(rawValue: 2), .random))
        for i in 0..<MemoryLink.capacity {
            #expect(a.canSend)
            a.send([UInt8(i)])
        }
        #expect(!a.canSend)
        let ready = Task { await a.sendReady(); return a.canSend }
        // The owner takes everything queued in one batch, which makes room.
        let batch = await b.receive()
        #expect(batch.count == MemoryLink.capacity)
        #expect(await ready.value)
        a.send([0xFF])
        a.close()
        #expect(!a.canSend)
        await a.sendReady()   // returns at once on a closed link
        var received: [LinkEvent] = []
        while true {
            let more = await b.receive()
            if more.isEmpty { break }
            received += more
        }
        #expect(received.count == 2, "the PDU sent before the close, then the close")
        if case .closed(let reason) = received.last { #expect(reason == .hci(HCIStatus.remoteUserTerminatedConnection)) } else {
            Issue.record("no close event")
        }
    }
}

@Suite("Manager state causes")
struct ManagerStateCauseTests {
    @Test func errnoMapsToStateAndFix() {
        let cases: [(Int32, ManagerState, String)] = [
            (EAFNOSUPPORT, .unsupported, "no Bluetooth adapter: the kernel has no AF_BLUETOOTH support"),
            (ENODEV, .unsupported, "no Bluetooth adapter: hci1 does not exist"),
            (EPERM, .unauthorized, "permission denied: run as root or grant CAP_NET_ADMIN,CAP_NET_RAW"),
            (EACCES, .unauthorized, "permission denied: run as root or grant CAP_NET_ADMIN,CAP_NET_RAW"),
            (ENETDOWN, .poweredOff, "adapter hci1 is powered off: bring it up with `btmgmt --index 1 power on`"),
            (ERFKILL, .poweredOff, "adapter hci1 is blocked by rfkill"),
            (EBUSY, .unsupported, "adapter hci1 is in use"),
        ]
        for (code, state, message) in cases {
            let cause = ManagerStateCause(errno: code, adapter: "hci1")
            #expect(cause?.state == state)
            #expect(cause?.description.hasPrefix(message) == true, "\(String(describing: cause))")
            #expect(ManagerStatus(cause: cause!).description.hasPrefix("\(state): "))
        }
        #expect(ManagerStateCause(errno: EINTR, adapter: "hci0") == nil)
    }

    @Test func errorsDescribeThemselves() {
        #expect(AttuneError.unavailable(.permissionDenied).description
                == "permission denied: run as root or grant CAP_NET_ADMIN,CAP_NET_RAW")
        #expect(AttuneError.peripheralDisconnected(.hci(HCIStatus.connectionTimeout)).description
                == "peripheral disconnected: Connection Timeout (HCI 0x08); the peripheral stopped answering within the "
                + "supervision timeout; it may be out of range, powered off or reset")
        #expect(AttuneError.connectionFailed(.hci(HCIStatus.commandDisallowed)).description
                == "connection failed: Command Disallowed (HCI 0x0c); a connection attempt is already pending on this "
                + "controller; wait for it to finish or cancel it (another process, such as bluetoothd, may be connecting)")
        #expect(AttuneError.connectionFailed(.hci(HCIStatus.connectionFailedToBeEstablished)).description
                == "connection failed: Connection Failed to be Established (HCI 0x3e); the peripheral did not answer; "
                + "it may be out of range or no longer advertising")
        #expect(AttuneError.att(.insufficientAuthentication).description.hasPrefix("ATT error: "))
        #expect(DisconnectReason.connectionTimeout.description == "connection attempt timed out")
    }
}

@Suite("Included services", .timeLimit(.minutes(10)))
struct IncludedServiceTests {
    @Test func includedServicesAreDiscovered() async throws {
        let radio = MemoryRadio()
        let manager = try PeripheralManager(transport: .memory(radio))
        let published = try await manager.add(contentsOf: [
            ServiceDefinition(BluetoothUUID(0x180A), primary: false, id: "info", characteristics: [
                CharacteristicDefinition(BluetoothUUID(0x2A29), properties: [.read], value: Array("Attune".utf8)),
            ]),
            ServiceDefinition(BluetoothUUID(0x180D), includes: ["info"], characteristics: [
                CharacteristicDefinition(BluetoothUUID(0x2A37), properties: [.notify]),
            ]),
        ])
        #expect(published.map(\.uuid) == [BluetoothUUID(0x180A), BluetoothUUID(0x180D)])
        try await manager.startAdvertising(localName: "Inc")
        let central = CentralManager(transport: .memory(radio))
        let ad = try await first(try central.scan(), "advertisement") { $0.localName == "Inc" }
        let peripheral = central.peripheral(for: ad)
        try await central.connect(peripheral)
        let heart = try #require(try await peripheral.discoverServices([BluetoothUUID(0x180D)]).first)
        #expect(try await peripheral.discoverServices([BluetoothUUID(0x180A)]).isEmpty, "secondary: not a primary service")
        let included = try await peripheral.discoverIncludedServices(for: heart)
        #expect(included.map(\.uuid) == [BluetoothUUID(0x180A)])
        #expect(included.first?.isPrimary == false)
        let info = try await peripheral.discoverCharacteristics(for: included[0])
        #expect(try await peripheral.readValue(for: info[0]) == Array("Attune".utf8))
        #expect(await peripheral.services?.first { $0.uuid == BluetoothUUID(0x180D) }?.includedServiceHandles
                == [included[0].startHandle])
    }
}

/// Without discovery on connect, every discover call runs its own GATT procedure.
@Suite("Step-by-step discovery", .timeLimit(.minutes(10)))
struct StepwiseDiscoveryTests {
    @Test func eachDiscoveryRunsItsProcedure() async throws {
        let radio = MemoryRadio()
        let manager = try PeripheralManager(transport: .memory(radio))
        let published = try await manager.add(EndToEndTests.heartRateService())
        try await manager.startAdvertising(localName: "Steps")
        let central = CentralManager(transport: .memory(radio))
        let ad = try await first(try central.scan(), "advertisement") { $0.localName == "Steps" }
        let peripheral = central.peripheral(for: ad)
        let events = peripheral.lifecycleEvents
        try await central.connect(peripheral, discoverDatabase: false)
        let seen = try await collect(events, until: .phase(.ready))
        #expect(!seen.contains(.phase(.discovering)))

        let all = try await peripheral.discoverServices()
        #expect(all.map(\.uuid) == [BluetoothUUID(0x1800), BluetoothUUID(0x1801), EndToEndTests.heartRate])
        let byUUID = try await peripheral.discoverServices([EndToEndTests.heartRate])
        #expect(byUUID.map(\.startHandle) == [published.startHandle])
        let characteristics = try await peripheral.discoverCharacteristics(for: byUUID[0])
        #expect(characteristics.map(\.valueHandle) == published.characteristics.map(\.valueHandle))
        let measurement = characteristics[0]
        #expect(measurement.descriptors == nil)
        // Subscribing finds the CCCD by discovering descriptors on demand.
        let values = await peripheral.notifications(for: measurement)
        let serverEvents = manager.events
        try await peripheral.setNotifyValue(true, for: measurement)
        let tree = try #require(await peripheral.services?.first { $0.uuid == EndToEndTests.heartRate })
        #expect(tree.characteristics?.first?.descriptors?.map(\.uuid) == [GATTAttributeType.clientCharacteristicConfiguration])
        let measurementHandle = published.characteristics[0].valueHandle
        _ = try await first(serverEvents, "subscribed") {
            if case .subscriptionChanged(_, measurementHandle, .notification) = $0 { true } else { false }
        }
        #expect(await manager.updateValue([0, 99], for: published.characteristics[0]))
        var iterator = values.makeAsyncIterator()
        #expect(try await iterator.next()?.value == [0, 99])
        #expect(await peripheral.subscriptions.first?.serviceUUID == EndToEndTests.heartRate)
        let body = characteristics[1]
        #expect(try await peripheral.readValue(for: body) == [0x01])
    }
}
