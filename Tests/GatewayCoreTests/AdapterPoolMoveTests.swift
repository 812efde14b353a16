import Testing
import BluetoothCore
@testable import GatewayCore

/// A device that leaves an adapter while its attempt or link there is still under way:
/// no adapter connects it again until that attempt or link has ended. A cancel only asks;
/// the controller's Connection Complete may win the race, and a second adapter connecting
/// meanwhile gives the device two links at once (`GatewayPoolScaleTests` met it under load).
@Suite("Adapter pool: moving a device")
struct AdapterPoolMoveTests {
    /// Which adapters hold an attempt or link of each device, built from the pool's own
    /// actions and the facts fed back, independently of the pool's state. A connect while
    /// any adapter (the same one included) still holds the device is a violation.
    struct Ledger {
        var holders: [DeviceID: [AdapterID]] = [:]
        var violations: [String] = []

        mutating func take(_ step: GatewayStep<PoolAction>) {
            for case .adapter(let adapter, .connect(let device)) in step.actions {
                if let held = holders[device], !held.isEmpty {
                    violations.append("\(device) connected on \(adapter) while \(held) still held it")
                }
                holders[device, default: []].append(adapter)
            }
        }

        /// The attempt or link of `device` on `adapter` ended (a failure, a disconnection).
        mutating func ended(_ device: DeviceID, on adapter: AdapterID) {
            holders[device]?.removeAll { $0 == adapter }
        }
    }

    static func pool() -> AdapterPool {
        AdapterPool(adapters: [("hci0", SchedulerConfiguration(maxConnections: 5)),
                               ("hci1", SchedulerConfiguration(maxConnections: 5))], seed: 1)
    }

    /// `a` is connecting on hci0, its first adapter, and both adapters hear it.
    static func connectingOnHci0(_ ledger: inout Ledger) -> AdapterPool {
        var p = pool()
        ledger.take(p.add("a", policy: .keep, affinity: ["hci0", "hci1"], at: t(0)))
        ledger.take(p.advertisement(from: "a", on: "hci0", at: t(1)))
        ledger.take(p.advertisement(from: "a", on: "hci1", at: t(1)))
        #expect(p.assignment(of: "a") == "hci0")
        #expect(ledger.holders["a"] == ["hci0"])
        return p
    }

    @Test("moved while connecting, the old connect completes before its cancel: the new adapter waits for its end")
    func theOldConnectWinsTheRaceWithItsCancel() {
        var ledger = Ledger()
        var p = Self.connectingOnHci0(&ledger)
        let move = p.add("a", policy: .keep, affinity: ["hci1"], at: t(2))
        ledger.take(move)
        #expect(move.a.contains(.adapter("hci0", .cancelConnect("a"))))
        #expect(!move.a.contains(.adapter("hci1", .connect("a"))), "hci0's attempt has not ended: \(move.a)")
        // hci0's Connection Complete (status 0) crossed the cancel.
        let late = p.connected(on: "hci0", handle: 1, device: "a", at: t(3))
        ledger.take(late)
        #expect(late.a.contains(.adapter("hci0", .disconnect(handle: 1, device: "a"))), "the late link is ended: \(late.a)")
        #expect(!late.a.contains(.adapter("hci1", .connect("a"))), "hci0 holds a link of it: \(late.a)")
        // Only its end lets hci1 connect.
        ledger.ended("a", on: "hci0")
        let down = p.disconnected(on: "hci0", handle: 1, reason: .localHostTerminated, at: t(4))
        ledger.take(down)
        #expect(down.a.contains(.adapter("hci1", .connect("a"))), "\(down.a)")
        #expect(p.assignment(of: "a") == "hci1")
        #expect(p.scheduler(of: "hci0")?.slotsUsed == 0)
        #expect(ledger.violations.isEmpty, "\(ledger.violations)")
    }

    @Test("moved while connecting, the cancel is confirmed: the new adapter connects after it")
    func theCancelIsConfirmed() {
        var ledger = Ledger()
        var p = Self.connectingOnHci0(&ledger)
        let move = p.add("a", policy: .keep, affinity: ["hci1"], at: t(2))
        ledger.take(move)
        #expect(!move.a.contains(.adapter("hci1", .connect("a"))), "\(move.a)")
        // The cancel's Connection Complete (0x02) ends hci0's attempt.
        ledger.ended("a", on: "hci0")
        let cancelled = p.connectFailed(on: "hci0", reason: .unknownConnectionIdentifier, at: t(3))
        ledger.take(cancelled)
        #expect(cancelled.a.contains(.adapter("hci1", .connect("a"))), "\(cancelled.a)")
        #expect(p.scheduler(of: "hci0")?.pendingDevice == nil)
        #expect(ledger.violations.isEmpty, "\(ledger.violations)")
    }

    @Test("taken from the pool while connected and given back: no adapter connects it until the old link is down")
    func removedAndAddedBackWhileTheOldLinkIsUp() {
        var ledger = Ledger()
        var p = Self.connectingOnHci0(&ledger)
        ledger.take(p.connected(on: "hci0", handle: 7, device: "a", at: t(2)))
        // The lease is lost and won back at once, say.
        let removed = p.remove("a", at: t(3))
        ledger.take(removed)
        #expect(removed.a.contains(.adapter("hci0", .disconnect(handle: 7, device: "a"))))
        ledger.take(p.add("a", policy: .keep, at: t(3)))
        ledger.take(p.advertisement(from: "a", on: "hci1", at: t(3)))
        ledger.take(p.advertisement(from: "a", on: "hci0", at: t(3)))
        #expect(ledger.holders["a"] == ["hci0"], "only the old link: \(ledger.holders)")
        ledger.ended("a", on: "hci0")
        let down = p.disconnected(on: "hci0", handle: 7, reason: .localHostTerminated, at: t(4))
        ledger.take(down)
        #expect(down.a.contains(.adapter("hci0", .connect("a"))), "its first adapter again, now free: \(down.a)")
        #expect(ledger.violations.isEmpty, "\(ledger.violations)")
    }

    @Test("an adapter that goes down ends what it held: the device moves on at once")
    func anAdapterGoingDownEndsItsAttempt() {
        var ledger = Ledger()
        var p = Self.connectingOnHci0(&ledger)
        ledger.ended("a", on: "hci0")
        let down = p.adapterDown("hci0", at: t(2))
        ledger.take(down)
        #expect(down.a.contains(.adapter("hci1", .connect("a"))), "\(down.a)")
        #expect(ledger.violations.isEmpty, "\(ledger.violations)")
    }
}
