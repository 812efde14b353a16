import Replay

/// The peripheral a capture recorded, served again on a ``PeripheralManager`` so that a
/// central (yours, in a test, over a ``MemoryRadio``) meets the recording instead of the
/// device: the database rebuilt from the captured responses with the captured handles
/// and values, the notifications and indications its application sent re-sent at their
/// captured pace, and writes answered as the captured server answered them.
///
/// ```swift
/// let recording = try CapturedPeripheral(capture: "sensor.btsnoop")
/// let served = try await recording.start(on: .memory(radio), speed: 10)
/// // a CentralManager on .memory(radio) scans, connects and reads as with the device
/// await served.stop()
/// ```
///
/// What the capture never showed cannot be served: attributes it never typed, values it
/// never read (served empty). See ``CapturedServerScript`` for the rules.
public struct CapturedPeripheral: Sendable {
    /// What is served, as rebuilt from the capture.
    public let script: CapturedServerScript

    /// Reads a capture file (btsnoop, btmon, pcap or pcapng).
    /// - Parameter conversation: serve the connection with this HCI connection handle
    ///   (`attune serve --conn`); nil: the first connection of the capture. The
    ///   database is rebuilt from every connection on that handle (all when nil).
    public init(capture path: String, conversation: UInt16? = nil) throws(ReplayError) {
        script = try CapturedServerScript(path: path, connectionHandle: conversation)
    }

    /// Serves a script already built (from conversations in memory, say).
    public init(script: CapturedServerScript) {
        self.script = script
    }

    /// The database served: the captured handles, values as captured.
    public var database: AttributeDatabase { script.database }

    /// The pushes re-sent, with their captured timing.
    public var pushes: [CapturedPush] { script.pushes }

    /// The captured GAP Device Name when it is UTF-8, else "Captured Peripheral": the
    /// name advertised unless ``start(on:name:speed:clock:snoop:)`` is given another.
    public var localName: String {
        let deviceName = database.attributes.first { $0.type == BluetoothUUID(0x2A00) }?.value ?? []
        if !deviceName.isEmpty, let name = String(validating: deviceName, as: UTF8.self) { return name }
        return "Captured Peripheral"
    }

    /// Serves the recording on `transport` and advertises it (connectable, with
    /// ``localName`` and the 16-bit UUIDs of its primary services but GAP's and GATT's),
    /// once the controller is ready: as a Core Bluetooth app waits for `.poweredOn`, this
    /// waits while the manager is ``ManagerState/unknown`` or resetting (a userland
    /// host initialising its controller), and throws ``AttuneError/unavailable(_:)`` when
    /// the controller turns out unusable.
    ///
    /// Every central that connects gets the recording from its start: a push timed from
    /// the connection goes out that long after the central connected, one timed from a
    /// subscription that long after the central subscribed (the n-th time, for the
    /// capture's n-th subscription), to that central alone and only if it subscribed.
    ///
    /// - Parameters:
    ///   - speed: how much faster than captured the pushes go (2: twice as fast), 0.001…1000.
    ///   - clock: the clock pushes are timed on; tests pass one they advance themselves.
    public func start(on transport: BluetoothTransport, name: String? = nil, speed: Double = 1,
                      clock: any Clock<Duration> = ContinuousClock(), snoop: SnoopFile? = nil)
        async throws(AttuneError) -> ServedCapture {
        guard speed.isFinite, (0.001...1000).contains(speed) else {
            throw .operationNotSupported("speed \(speed) is outside 0.001…1000")
        }
        let name = name ?? localName
        let manager = try PeripheralManager(transport: transport, name: name, snoop: snoop)
        try await Self.poweredOn(manager)
        try await manager.serve(script.database, rxMTU: script.serverRxMTU)
        let served = ServedCapture(peripheral: self, manager: manager, speed: speed, clock: clock)
        await served.begin()
        let advertised = database.services.filter {
            $0.isPrimary && $0.uuid.uint16 != nil && $0.uuid != BluetoothUUID(0x1800) && $0.uuid != BluetoothUUID(0x1801)
        }.map(\.uuid)
        do {
            try await manager.startAdvertising(localName: name, serviceUUIDs: advertised)
        } catch {
            await served.stop()
            throw error
        }
        return served
    }

    /// Waits for the manager's controller to be ready: `.poweredOn`. Over a userland
    /// transport (H4) the host initialises the controller in the background, and
    /// advertising before it is done fails ("the controller is still initialising").
    static func poweredOn(_ manager: PeripheralManager) async throws(AttuneError) {
        for await state in manager.stateUpdates {
            switch state {
            case .poweredOn:
                return
            case .unknown, .resetting:
                continue
            case .unsupported, .unauthorized, .poweredOff:
                throw .unavailable(manager.status.cause ?? .controllerFailed("the peripheral manager is \(state)"))
            }
        }
        // The updates end when the task is cancelled or the backend is gone.
        throw .cancelled
    }
}
