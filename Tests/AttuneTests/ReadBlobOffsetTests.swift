import Foundation
import Testing
@testable import Attune

/// A long read of a dynamic characteristic over an MTU of 23: the application is asked
/// at offsets 0, 22 and 44 (``ATTRequest/offset``, what `attune serve --json` logs),
/// answers from each offset on as a Core Bluetooth application does, and the central
/// reads the whole value.
@Suite("Read Blob offsets reach the application", .timeLimit(.minutes(10)))
struct ReadBlobOffsetTests {
    static let service = BluetoothUUID(high: 0x1234_5678_0000_1000, low: 0x8000_0080_5F9B_34FB)
    static let dynamic = BluetoothUUID(0x2AA1)

    @Test func eachBlobIsAskedAtItsOffset() async throws {
        let radio = MemoryRadio()
        let manager = try PeripheralManager(transport: .memory(radio))
        _ = try await manager.add(ServiceDefinition(Self.service, characteristics: [
            CharacteristicDefinition(Self.dynamic, properties: [.read], dynamic: true),
        ]))
        // The same database, announcing a receive MTU of 23: 22 bytes per read.
        try await manager.serve(await manager.server.database, rxMTU: 23)
        try await manager.startAdvertising(localName: "Blob")
        let value = (0..<60).map { UInt8($0) }
        let answers = Task {
            var offsets: [Int] = []
            for await request in manager.requests {
                offsets.append(request.offset)
                let answer: Result<[UInt8], ATTErrorCode> = request.offset <= value.count
                    ? .success(Array(value[request.offset...])) : .failure(.invalidOffset)
                await manager.respond(to: request, withResult: answer)
                if offsets.count == 3 { break }
            }
            return offsets
        }
        let central = CentralManager(transport: .memory(radio))
        let ad = try await first(try central.scan(), "advertisement") { $0.localName == "Blob" }
        let peripheral = central.peripheral(for: ad)
        try await central.connect(peripheral)
        let service = try #require(try await peripheral.discoverServices([Self.service]).first)
        let characteristic = try #require(try await peripheral.discoverCharacteristics(for: service).first {
            $0.uuid == Self.dynamic
        })
        #expect(try await peripheral.readValue(for: characteristic) == value)
        #expect(await answers.value == [0, 22, 44])
        await central.cancelConnection(peripheral)
    }
}
