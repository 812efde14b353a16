import Testing
import BluetoothCore
@testable import GatewayCore

@Suite("Adapter pool")
struct AdapterPoolTests {
    static func pool(max0: Int = 5, max1: Int = 5) -> AdapterPool {
        AdapterPool(adapters: [("hci0", SchedulerConfiguration(maxConnections: max0)),
                               ("hci1", SchedulerConfiguration(maxConnections: max1))], seed: 1)
    }

    @Test func aDeviceIsAssignedOnlyOnceAnAdapterHearsIt() {
        var p = Self.pool()
        #expect(p.add("a", policy: .keep, at: t(0)).a == [], "heard by nobody yet")
        #expect(p.assignment(of: "a") == nil)
        let heard = p.advertisement(from: "a", on: "hci1", at: t(1))
        #expect(heard.a == [.assigned("a", "hci1"), .adapter("hci1", .connect("a"))])
    }

    @Test func affinityOrderWinsAmongAdaptersThatHeardTheDevice() {
        var p = Self.pool()
        _ = p.add("a", policy: .keep, affinity: ["hci1", "hci0"], at: t(0))
        _ = p.advertisement(from: "a", on: "hci0", at: t(1))
        #expect(p.assignment(of: "a") == "hci0", "the only adapter that heard it")
        var q = Self.pool()
        _ = q.add("a", policy: .keep, affinity: ["hci1", "hci0"], at: t(0))
        // Both hear it before it is added: the config order decides.
        _ = q.remove("a", at: t(0))
        _ = q.add("a", policy: .never, affinity: ["hci1", "hci0"], at: t(0))
        _ = q.advertisement(from: "a", on: "hci0", at: t(1))
        _ = q.advertisement(from: "a", on: "hci1", at: t(1))
        #expect(q.add("a", policy: .keep, affinity: ["hci1", "hci0"], at: t(2)).a
                == [.assigned("a", "hci1"), .adapter("hci1", .connect("a"))])
    }

    @Test func aFullAdapterPassesTheDeviceToTheNext() {
        var p = Self.pool(max0: 1)
        _ = p.add("a", policy: .keep, at: t(0))
        _ = p.add("b", policy: .keep, at: t(0))
        _ = p.advertisement(from: "a", on: "hci0", at: t(1))
        _ = p.advertisement(from: "a", on: "hci1", at: t(1))
        #expect(p.assignment(of: "a") == "hci0")
        _ = p.advertisement(from: "b", on: "hci0", at: t(1))
        #expect(p.assignment(of: "b") == nil, "hci0's one slot is claimed by a; hci1 has not heard b")
        let b = p.advertisement(from: "b", on: "hci1", at: t(2))
        #expect(b.a == [.assigned("b", "hci1"), .adapter("hci1", .connect("b"))])
    }

    @Test func devicesMoveWhenTheirAdapterGoesDown() {
        var p = Self.pool()
        _ = p.add("a", policy: .keep, at: t(0))
        _ = p.advertisement(from: "a", on: "hci0", at: t(1))
        _ = p.advertisement(from: "a", on: "hci1", at: t(1))
        _ = p.connected(on: "hci0", handle: 1, device: "a", at: t(2))
        #expect(p.scheduler(of: "hci0")?.slotsUsed == 1)
        let down = p.adapterDown("hci0", at: t(3))
        #expect(down.a == [.assigned("a", nil), .assigned("a", "hci1"), .adapter("hci1", .connect("a"))])
        #expect(p.scheduler(of: "hci0")?.slotsUsed == 0, "a reset drops every link")
        let later = p.tick(at: t(100)).a
        #expect(!later.contains(.adapter("hci0", .connect("a"))), "nothing is sent to an adapter that is down")
    }

    @Test func aDeviceNotHeardRecentlyIsNotAssigned() {
        var p = Self.pool()
        _ = p.add("a", policy: .keep, at: t(0))
        _ = p.advertisement(from: "a", on: "hci1", at: t(0))
        _ = p.adapterDown("hci1", at: t(0.5))
        _ = p.advertisement(from: "a", on: "hci0", at: t(1))
        #expect(p.assignment(of: "a") == "hci0")
        _ = p.adapterUp("hci1", at: t(2))
        #expect(p.assignment(of: "a") == "hci0", "it stays while hci0 serves it")
        var q = Self.pool()
        _ = q.add("a", policy: .keep, at: t(0))
        _ = q.advertisement(from: "a", on: "hci1", at: t(0))
        _ = q.adapterDown("hci1", at: t(1))
        _ = q.adapterUp("hci1", at: t(40))
        #expect(q.assignment(of: "a") == nil, "heard 40 s ago: not recent")
    }

    @Test func eachAdapterHasItsOwnPendingConnect() {
        var p = Self.pool()
        _ = p.add("a", policy: .keep, at: t(0))
        _ = p.add("b", policy: .keep, affinity: ["hci1"], at: t(0))
        _ = p.add("c", policy: .keep, affinity: ["hci0"], at: t(0))
        _ = p.advertisement(from: "a", on: "hci0", at: t(1))
        _ = p.advertisement(from: "b", on: "hci1", at: t(1))
        let c = p.advertisement(from: "c", on: "hci0", at: t(1))
        #expect(c.a == [.assigned("c", "hci0")], "hci0 already has a pending")
        #expect(p.scheduler(of: "hci0")?.pendingDevice == "a")
        #expect(p.scheduler(of: "hci1")?.pendingDevice == "b")
        #expect(p.connectFailed(on: "hci0", reason: .connectionFailedToBeEstablished, at: t(2)).a == [.adapter("hci0", .connect("c"))])
    }

    @Test func anOnDemandRequestWaitsForAnAdapter() {
        var p = Self.pool()
        _ = p.add("o", policy: .onDemand, at: t(0))
        #expect(p.request("o", at: t(1)).a == [])
        #expect(p.advertisement(from: "o", on: "hci0", at: t(2)).a == [.assigned("o", "hci0"), .adapter("hci0", .connect("o"))])
    }
}
