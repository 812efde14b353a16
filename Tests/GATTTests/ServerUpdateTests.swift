import Testing
import ATT
@testable import GATT

/// ``GATTServer/subscribers(of:where:into:)`` and ``GATTServer/update(_:characteristic:to:at:into:)``:
/// the one-pass update a peripheral manager makes for every new value.
@Suite struct ServerUpdateTests {
    @Test func findsEachSubscriberOnceWithItsDelivery() {
        var h = ServerHarness(testDatabase(), connections: [1, 2, 3])
        let value = h.handle(of: 0x2A37), cccd = h.cccd(of: 0x2A37)
        #expect(h.send("12" + le(cccd) + "0100", from: 1) == ["13"])
        #expect(h.send("12" + le(cccd) + "0100", from: 3) == ["13"])
        var found: [GATTSubscriber] = []
        h.server.subscribers(of: value, where: { _ in true }, into: &found)
        #expect(found.map(\.connection) == [1, 3])
        #expect(found.allSatisfy { $0.delivery == .notification })
        found.removeAll()
        h.server.subscribers(of: value, where: { $0 != 1 }, into: &found)
        #expect(found.map(\.connection) == [3])
    }

    @Test func notifiesIntoTheOutputAndStoresTheValue() throws {
        var h = ServerHarness(testDatabase(), connections: [1, 2])
        let value = h.handle(of: 0x2A37)
        _ = h.send("12" + le(h.cccd(of: 0x2A37)) + "0100", from: 2)
        var found: [GATTSubscriber] = []
        h.server.subscribers(of: value, where: { _ in true }, into: &found)
        try h.server.update(Array(repeating: 0xAB, count: 30), characteristic: value, to: found, at: h.now, into: &h.out)
        // Truncated to ATT_MTU − 3, as notify does, and to the subscriber only.
        #expect(h.drain(2) == ["1b" + le(value) + String(repeating: "ab", count: 20)])
        #expect(h.out.pdus.isEmpty)
        #expect(h.server.database[value]?.value == Array(repeating: 0xAB, count: 30))
    }

    @Test func indicatesAndQueuesBehindTheUnconfirmed() throws {
        var h = ServerHarness(testDatabase())
        let value = h.handle(of: 0x2A38)
        _ = h.send("12" + le(h.cccd(of: 0x2A38)) + "0200")
        var found: [GATTSubscriber] = []
        h.server.subscribers(of: value, where: { _ in true }, into: &found)
        #expect(found.map(\.delivery) == [.indication])
        try h.server.update([1], characteristic: value, to: found, at: h.now, into: &h.out)
        try h.server.update([2], characteristic: value, to: found, at: h.now, into: &h.out)
        #expect(h.drain() == ["1d" + le(value) + "01"])
        #expect(h.send("1e") == ["1d" + le(value) + "02"])
    }

    @Test func aFullIndicationQueueThrowsAfterTheNotificationsWent() throws {
        var configuration = GATTServerConfiguration()
        configuration.indicationQueueLimit = 1
        var h = ServerHarness(testDatabase(), configuration: configuration)
        let value = h.handle(of: 0x2A38)
        _ = h.send("12" + le(h.cccd(of: 0x2A38)) + "0200")
        var found: [GATTSubscriber] = []
        h.server.subscribers(of: value, where: { _ in true }, into: &found)
        try h.server.update([1], characteristic: value, to: found, at: h.now, into: &h.out)
        #expect(throws: GATTServerError.indicationQueueFull(1)) {
            try h.server.update([2], characteristic: value, to: found, at: h.now, into: &h.out)
        }
    }

    @Test func aSubscriberWhoseSlotMovedIsFoundAgain() throws {
        var h = ServerHarness(testDatabase(), connections: [1, 2])
        let value = h.handle(of: 0x2A37)
        _ = h.send("12" + le(h.cccd(of: 0x2A37)) + "0100", from: 2)
        var found: [GATTSubscriber] = []
        h.server.subscribers(of: value, where: { _ in true }, into: &found)
        h.server.disconnect(1, into: &h.out)
        h.out.removeAll()
        try h.server.update([7], characteristic: value, to: found, at: h.now, into: &h.out)
        #expect(h.drain(2) == ["1b" + le(value) + "07"])
    }
}
