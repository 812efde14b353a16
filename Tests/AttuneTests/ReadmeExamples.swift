import Attune
import Testing

// The README's three examples, compiled with the suite and run over the memory transport
// (the third is a test of its own, run from the package directory).
// On a real machine pass `.kernel("hci0")` (or `.h4(.tcp(host: "127.0.0.1", port: 1234))`)
// and a `FileStore()`.

// MARK: Central example

/// Finds a heart-rate sensor, connects (reconnecting by itself if the link drops),
/// reads where the sensor sits and prints `count` heart-rate measurements.
func centralExample(transport: BluetoothTransport, store: any Store, count: Int) async throws -> [Int] {
    let central = CentralManager(transport: transport, store: store)
    guard central.state == .poweredOn else {
        throw AttuneError.unavailable(central.status.cause!)   // e.g. "permission denied: run as root or …"
    }

    let heartRate = BluetoothUUID(0x180D)
    var sighting: Advertisement?
    for await advertisement in try central.scan(services: [heartRate]) {
        print("found \(advertisement.localName ?? "?") at \(advertisement.address), RSSI \(advertisement.rssi ?? 0)")
        sighting = advertisement
        break   // leaving the loop stops the scan
    }
    let sensor = central.peripheral(for: sighting!)

    try await central.connect(sensor, timeout: .seconds(30), reconnect: .automatic)
    let service = try await sensor.discoverServices([heartRate])[0]
    let characteristics = try await sensor.discoverCharacteristics(for: service)
    let location = characteristics.first { $0.uuid == BluetoothUUID(0x2A38) }!
    let measurement = characteristics.first { $0.uuid == BluetoothUUID(0x2A37) }!
    let control = characteristics.first { $0.uuid == BluetoothUUID(0x2A39) }!

    print("sensor location:", try await sensor.readValue(for: location))
    try await sensor.writeValue([0x01], for: control, type: .withResponse)   // reset energy expended

    let values = await sensor.notifications(for: measurement)
    try await sensor.setNotifyValue(true, for: measurement)
    var rates: [Int] = []
    for try await notification in values.prefix(count) {
        // Nothing is dropped silently: a consumer that stalled learns how much it missed.
        if notification.lostBefore > 0 { print("missed \(notification.lostBefore) values") }
        let value = notification.value
        // Flags bit 0 clear: the rate is one byte after the flags.
        let rate = value[0] & 1 == 0 ? Int(value[1]) : Int(value[1]) | Int(value[2]) << 8
        print("heart rate \(rate) bpm")
        rates.append(rate)
    }
    await central.cancelConnection(sensor)
    return rates
}

// On a Linux machine:
// let rates = try await centralExample(transport: .kernel("hci0"), store: try FileStore(), count: 10)

// MARK: Peripheral example

/// Publishes a heart-rate service, advertises it, answers control-point writes and
/// notifies `beats` measurements to whoever subscribes.
func peripheralExample(transport: BluetoothTransport, beats: Int) async throws {
    let manager = try PeripheralManager(transport: transport, name: "Pulse")
    let events = manager.events

    let service = try await manager.add(ServiceDefinition(BluetoothUUID(0x180D), characteristics: [
        CharacteristicDefinition(BluetoothUUID(0x2A37), properties: [.notify]),                // measurement
        CharacteristicDefinition(BluetoothUUID(0x2A38), properties: [.read], value: [0x01]),   // chest
        CharacteristicDefinition(BluetoothUUID(0x2A39), properties: [.write], dynamic: true),  // control point
    ]))
    try await manager.startAdvertising(localName: "Pulse", serviceUUIDs: [BluetoothUUID(0x180D)])

    // Dynamic characteristics: every request waits for an answer.
    let answers = Task {
        for await request in manager.requests {
            let known = request.value == [0x01]
            await manager.respond(to: request, withResult: known ? .success([]) : .failure(ATTErrorCode(0x80)))
        }
    }
    defer { answers.cancel() }

    let measurement = service[BluetoothUUID(0x2A37)]!
    for await event in events {
        if case .subscriptionChanged(let central, measurement.valueHandle, let configuration) = event,
           configuration.contains(.notification) {
            print("\(central) subscribed")
            break
        }
    }
    var bpm: UInt8 = 60
    for _ in 0..<beats {
        // false means the link is full: wait for room, as Core Bluetooth apps do.
        while !(await manager.updateValue([0x00, bpm], for: measurement)) {
            await manager.readyToUpdateSubscribers()
        }
        bpm += 1
        try await Task.sleep(for: .milliseconds(5))   // a real sensor: once a second
    }
    await manager.stopAdvertising()
}

// On a Linux machine:
// try await peripheralExample(transport: .kernel("hci0"), beats: 60)

// MARK: Testing against a recording

/// Our central code against a recording of the real sensor (btgatt-server's heart-rate
/// service, captured with btmon): no radio, no sensor, the values and the pace it sent.
@Test func heartRateFromTheRecording() async throws {
    let recording = try CapturedPeripheral(capture: "Fixtures/captures/kernel/bluez_hr_mtu517.btsnoop")
    let radio = MemoryRadio()
    let served = try await recording.start(on: .memory(radio), speed: 20)   // 20× the captured pace

    let central = CentralManager(transport: .memory(radio))
    var sighting: Advertisement?
    for await advertisement in try central.scan() where advertisement.localName == recording.localName {
        sighting = advertisement
        break
    }
    let sensor = central.peripheral(for: sighting!)
    try await central.connect(sensor, timeout: .seconds(30))
    let service = try await sensor.discoverServices([BluetoothUUID(0x180D)])[0]
    let characteristics = try await sensor.discoverCharacteristics(for: service)
    let location = characteristics.first { $0.uuid == BluetoothUUID(0x2A38) }!
    let measurement = characteristics.first { $0.uuid == BluetoothUUID(0x2A37) }!

    #expect(try await sensor.readValue(for: location) == [0x01])   // chest, as captured
    let values = await sensor.notifications(for: measurement)
    try await sensor.setNotifyValue(true, for: measurement)
    var rates: [UInt8] = []
    for try await notification in values.prefix(3) { rates.append(notification.value[1]) }
    #expect(rates == [128, 122, 110])   // what the sensor sent after that subscription, a second apart (here 50 ms)

    await central.cancelConnection(sensor)
    await served.stop()
}

@Suite("README examples")
struct ReadmeExampleTests {
    @Test(.timeLimit(.minutes(10)))
    func centralAndPeripheralExamplesRunTogether() async throws {
        let radio = MemoryRadio()
        // Either may start first: the central's scan waits for the advertisement, and a
        // scan started later still hears an advertiser already on the radio.
        let peripheral = Task { try await peripheralExample(transport: .memory(radio), beats: 3) }
        let rates = try await within("the central example") {
            try await centralExample(transport: .memory(radio), store: InMemoryStore(), count: 3)
        }
        #expect(rates == [60, 61, 62])
        try await peripheral.value
    }
}
