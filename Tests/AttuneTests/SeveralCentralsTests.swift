import Testing
@testable import Attune

/// One peripheral manager holding several centrals at once over the memory transport,
/// whose radio stops connectable advertising at each connection as a controller does:
/// a second central can only connect if the manager resumes advertising.
@Suite("Several centrals on one peripheral manager", .timeLimit(.minutes(10)))
struct SeveralCentralsTests {
    static let heartRate = BluetoothUUID(0x180D)
    static let measurement = BluetoothUUID(0x2A37)

    struct Rig {
        let radio = MemoryRadio()
        let manager: PeripheralManager
        let measurement: PublishedCharacteristic

        init(maximumCentrals: Int? = nil) async throws {
            manager = try PeripheralManager(transport: .memory(radio), name: "Pulse")
            let published = try await manager.add(ServiceDefinition(SeveralCentralsTests.heartRate, characteristics: [
                CharacteristicDefinition(SeveralCentralsTests.measurement, properties: [.notify, .read], value: [0]),
            ]))
            measurement = try #require(published[SeveralCentralsTests.measurement])
            await manager.setMaximumCentrals(maximumCentrals)
            try await manager.startAdvertising(localName: "Pulse", serviceUUIDs: [SeveralCentralsTests.heartRate])
        }

        /// A central of its own on the radio, connected with `mtu` and subscribed.
        func subscribedCentral(mtu: Int) async throws -> (CentralManager, Peripheral, NotificationStream) {
            let central = CentralManager(transport: .memory(radio))
            let ad = try await first(try central.scan(services: [SeveralCentralsTests.heartRate]), "advertisement") { _ in true }
            let peripheral = central.peripheral(for: ad)
            try await central.connect(peripheral, preferredMTU: mtu)
            let service = try #require(try await peripheral.discoverServices([SeveralCentralsTests.heartRate]).first)
            let characteristic = try #require(try await peripheral.discoverCharacteristics(for: service).first)
            let values = await peripheral.notifications(for: characteristic)
            try await peripheral.setNotifyValue(true, for: characteristic)
            return (central, peripheral, values)
        }

        func subscribers() async -> Int { await manager.subscribedCentrals(for: measurement).count }
    }

    @Test func threeCentralsAtOnceEachWithItsOwnMTUAndSubscription() async throws {
        let rig = try await Rig()
        var links: [(CentralManager, Peripheral, NotificationStream)] = []
        for mtu in [23, 100, 517] { links.append(try await rig.subscribedCentral(mtu: mtu)) }
        #expect(await rig.manager.connectedCentrals.count == 3)
        try await eventually("three subscribers") { await rig.subscribers() == 3 }
        let lengths = await rig.manager.connectedCentrals.asyncMap { await rig.manager.maximumUpdateValueLength(for: $0) }
        #expect(lengths == [20, 97, 509], "each central keeps the MTU it exchanged")

        // A value longer than the smallest MTU reaches each central cut to its own MTU − 3.
        let long = [UInt8](repeating: 0x5A, count: 120)
        #expect(await rig.manager.updateValue(long, for: rig.measurement))
        var counts: [Int] = []
        for (_, _, values) in links {
            var iterator = values.makeAsyncIterator()
            counts.append(try #require(try await iterator.next()).value.count)
        }
        #expect(counts == [20, 97, 120])
    }

    @Test func aCentralLeavesAndANewOneConnects() async throws {
        let rig = try await Rig()
        let (firstCentral, firstPeripheral, _) = try await rig.subscribedCentral(mtu: 23)
        let (_, _, secondValues) = try await rig.subscribedCentral(mtu: 23)
        #expect(!rig.radio.currentAdvertisements.isEmpty, "advertising resumed after each connection")
        await firstCentral.cancelConnection(firstPeripheral)
        try await eventually("the first central gone") { await rig.manager.connectedCentrals.count == 1 }
        let (_, _, thirdValues) = try await rig.subscribedCentral(mtu: 23)
        try await eventually("two subscribers") { await rig.subscribers() == 2 }
        #expect(await rig.manager.updateValue([7], for: rig.measurement))
        var second = secondValues.makeAsyncIterator(), third = thirdValues.makeAsyncIterator()
        #expect(try await second.next()?.value == [7])
        #expect(try await third.next()?.value == [7])
    }

    @Test func aFullManagerPausesAdvertisingUntilACentralLeaves() async throws {
        let rig = try await Rig(maximumCentrals: 2)
        let (firstCentral, firstPeripheral, _) = try await rig.subscribedCentral(mtu: 23)
        _ = try await rig.subscribedCentral(mtu: 23)

        // Full: nothing connectable is on the air, so a third central's scan waits.
        #expect(rig.radio.currentAdvertisements.isEmpty)
        let waiting = Task { try await rig.subscribedCentral(mtu: 23) }

        await firstCentral.cancelConnection(firstPeripheral)
        let (_, _, values) = try await waiting.value
        #expect(await rig.manager.connectedCentrals.count == 2)
        #expect(await rig.manager.updateValue([9], for: rig.measurement))
        var iterator = values.makeAsyncIterator()
        #expect(try await iterator.next()?.value == [9])
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async -> T) async -> [T] {
        var result: [T] = []
        for element in self { result.append(await transform(element)) }
        return result
    }
}
