/// The built-in heart-rate-style peripheral that `attune demo` (and the CLI's
/// `--transport memory`) talk to: Battery, Heart Rate, Device Information, a custom
/// 128-bit service whose values exercise the long and reliable GATT procedures, and a
/// primary service that includes a secondary one, as LE Audio and hearing aids do.
///
/// ```swift
/// let radio = MemoryRadio()
/// let demo = try await DemoPeripheral.start(on: .memory(radio))
/// let updates = Task { await demo.sendUpdates() }   // notifications and indications
/// ```
public struct DemoPeripheral: Sendable {
    /// The advertised local name.
    public static let localName = "Attune Demo"

    /// Battery service (0x180F).
    public static let batteryService = BluetoothUUID(0x180F)
    /// Battery Level (0x2A19): read, notify; drops by one every two seconds of updates.
    public static let batteryLevel = BluetoothUUID(0x2A19)
    /// Heart Rate service (0x180D).
    public static let heartRateService = BluetoothUUID(0x180D)
    /// Heart Rate Measurement (0x2A37): notify, flags 0 and an 8-bit rate.
    public static let heartRateMeasurement = BluetoothUUID(0x2A37)
    /// Body Sensor Location (0x2A38): read, ``sensorLocation``.
    public static let bodySensorLocation = BluetoothUUID(0x2A38)
    /// Device Information service (0x180A).
    public static let deviceInformationService = BluetoothUUID(0x180A)
    /// Manufacturer Name String (0x2A29): "Attune".
    public static let manufacturerName = BluetoothUUID(0x2A29)
    /// Model Number String (0x2A24): "Demo HR-1".
    public static let modelNumber = BluetoothUUID(0x2A24)
    /// Firmware Revision String (0x2A26): "1.0.0".
    public static let firmwareRevision = BluetoothUUID(0x2A26)
    /// The custom service and its characteristics: 128-bit UUIDs made up for Attune.
    public static let customService = BluetoothUUID("A77E0001-5A1D-4E6B-9C3F-7B2E0D6C4A10")!
    /// Read only: ``longReadValue``.
    public static let longReadCharacteristic = BluetoothUUID("A77E0002-5A1D-4E6B-9C3F-7B2E0D6C4A10")!
    /// Read and write (long and reliable writes), empty at first.
    public static let longWriteCharacteristic = BluetoothUUID("A77E0003-5A1D-4E6B-9C3F-7B2E0D6C4A10")!
    /// Indicate: a 32-bit little-endian counter.
    public static let indicateCharacteristic = BluetoothUUID("A77E0004-5A1D-4E6B-9C3F-7B2E0D6C4A10")!

    /// A primary service whose only attribute past its declaration is an include of
    /// ``secondaryService``; placed after the others so their handles stay where they were.
    public static let includingService = BluetoothUUID("A77E0005-5A1D-4E6B-9C3F-7B2E0D6C4A10")!
    /// A secondary service, reachable only through the include of ``includingService``.
    /// Its 128-bit UUID is not in the include declaration: a client reads it from the
    /// service's own declaration (Vol 3 Part G §4.5.1).
    public static let secondaryService = BluetoothUUID("A77E0006-5A1D-4E6B-9C3F-7B2E0D6C4A10")!
    /// In ``secondaryService``: read, write and notify, one byte, ``secondaryValue`` at first.
    public static let secondaryCharacteristic = BluetoothUUID("A77E0007-5A1D-4E6B-9C3F-7B2E0D6C4A10")!
    /// The first value of ``secondaryCharacteristic``.
    public static let secondaryValue: [UInt8] = [0x5E]

    /// The 300-byte value of ``longReadCharacteristic``: longer than any one Read
    /// Response below ATT_MTU 302, so reading it takes Read Blob; no byte repeats with a
    /// period that would hide a misplaced part.
    public static let longReadValue: [UInt8] = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 / 256 &+ 1) }
    /// What the demo writes to ``longWriteCharacteristic``: 512 bytes, the attribute
    /// maximum, so it takes Prepare Write and Execute Write.
    public static let longWriteValue: [UInt8] = (0..<512).map { UInt8(truncatingIfNeeded: 255 &- $0 &* 3 &- $0 / 256) }

    /// Body Sensor Location: chest.
    public static let sensorLocation: [UInt8] = [0x01]

    /// The services, in the order they are published.
    public static var services: [ServiceDefinition] {
        [
            ServiceDefinition(batteryService, characteristics: [
                CharacteristicDefinition(batteryLevel, properties: [.read, .notify], value: [100]),
            ]),
            ServiceDefinition(heartRateService, characteristics: [
                CharacteristicDefinition(heartRateMeasurement, properties: [.notify], value: [0x00, 60]),
                CharacteristicDefinition(bodySensorLocation, properties: [.read], value: sensorLocation),
            ]),
            ServiceDefinition(deviceInformationService, characteristics: [
                CharacteristicDefinition(manufacturerName, properties: [.read], value: Array("Attune".utf8)),
                CharacteristicDefinition(modelNumber, properties: [.read], value: Array("Demo HR-1".utf8)),
                CharacteristicDefinition(firmwareRevision, properties: [.read], value: Array("1.0.0".utf8)),
            ]),
            ServiceDefinition(customService, characteristics: [
                CharacteristicDefinition(longReadCharacteristic, properties: [.read], value: longReadValue),
                CharacteristicDefinition(longWriteCharacteristic, properties: [.read, .write],
                                         extendedProperties: [.reliableWrite], value: []),
                CharacteristicDefinition(indicateCharacteristic, properties: [.indicate], value: [0, 0, 0, 0]),
            ]),
            ServiceDefinition(includingService, includes: ["secondary"]),
            ServiceDefinition(secondaryService, primary: false, id: "secondary", characteristics: [
                CharacteristicDefinition(secondaryCharacteristic, properties: [.read, .write, .notify], value: secondaryValue),
            ]),
        ]
    }

    /// The manager serving the services.
    public let manager: PeripheralManager
    /// The services with their handles.
    public let published: [PublishedService]

    /// Publishes the services on `transport` and advertises them (name, Heart Rate and
    /// Battery service UUIDs, connectable).
    public static func start(on transport: BluetoothTransport) async throws(AttuneError) -> DemoPeripheral {
        let manager = try PeripheralManager(transport: transport, name: localName, appearance: 0x0340)
        let published = try await manager.add(contentsOf: services)
        try await manager.startAdvertising(localName: localName, serviceUUIDs: [heartRateService, batteryService],
                                           appearance: 0x0340)
        return DemoPeripheral(manager: manager, published: published)
    }

    /// The published characteristic with this UUID.
    public func characteristic(_ uuid: BluetoothUUID) -> PublishedCharacteristic? {
        for service in published { if let c = service[uuid] { return c } }
        return nil
    }

    /// Sends values to subscribers until the task is cancelled: a heart-rate
    /// measurement every `interval`, and every second interval an indication of a
    /// 32-bit counter and the battery level (alternating), so even a one-second listen
    /// sees each kind; with the counter, its low byte as a notification of the secondary
    /// service's value. Values wait for room on the link rather than being dropped.
    public func sendUpdates(interval: Duration = .milliseconds(250)) async {
        guard let measurement = characteristic(Self.heartRateMeasurement),
              let battery = characteristic(Self.batteryLevel),
              let indicate = characteristic(Self.indicateCharacteristic),
              let secondary = characteristic(Self.secondaryCharacteristic) else { return }
        var tick = 0
        while !Task.isCancelled {
            // Flags 0: an 8-bit rate follows; a gentle 60…90 bpm wave.
            await send([0x00, UInt8(60 + (tick * 7) % 31)], measurement)
            if tick % 2 == 1 {
                let n = UInt32(tick / 2)
                await send((0..<4).map { UInt8(truncatingIfNeeded: n >> (8 * $0)) }, indicate)
                await send([UInt8(truncatingIfNeeded: n)], secondary)
            }
            if tick % 2 == 0 { await send([UInt8(max(1, 100 - tick / 8))], battery) }
            tick += 1
            do { try await Task.sleep(for: interval) } catch { return }
        }
    }

    private func send(_ value: [UInt8], _ characteristic: PublishedCharacteristic) async {
        while !(await manager.updateValue(value, for: characteristic)) {
            if Task.isCancelled { return }
            await manager.readyToUpdateSubscribers()
        }
    }
}
