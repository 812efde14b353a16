import CBlueZ
import Foundation
import Glibc
import HCI
import Testing
@testable import Transport

/// The kernel manager's state, by the rules the product decides it with:
/// ``KernelController`` looks its adapter up in the kernel's listing.
@Suite struct KernelManagerStateTests {
    static let address = BluetoothAddress("00:AA:01:00:00:00")!

    static func status(_ adapter: String, in adapters: [KernelAdapter]) -> ManagerStatus {
        KernelController.status(of: KernelController.lookUp(adapter, in: adapters))
    }

    @Test func derivesFromAdapters() {
        #expect(Self.status("hci0", in: []) == ManagerStatus(cause: .noAdapter("hci0")))
        #expect(Self.status("hci0", in: []).state == .unsupported)
        let classic = KernelAdapter(index: 0, name: "hci0", address: Self.address, isUp: true, supportsLowEnergy: false)
        #expect(Self.status("hci0", in: [classic]).state == .unsupported)
        let down = KernelAdapter(index: 0, name: "hci0", address: Self.address, isUp: false, supportsLowEnergy: true)
        #expect(Self.status("hci0", in: [down]) == ManagerStatus(cause: .adapterDown("hci0")))
        #expect(Self.status("hci0", in: [down]).state == .poweredOff)
        let up = KernelAdapter(index: 1, name: "hci1", address: Self.address, isUp: true, supportsLowEnergy: true)
        // Each manager follows its own adapter, whatever the others are.
        #expect(KernelController.lookUp("hci1", in: [down, up]) == .success(up))
        #expect(Self.status("hci1", in: [down, up]) == .poweredOn)
        let other = Self.status("hci0", in: [down, up])
        #expect(other.state == .poweredOff)
        #expect(other.description.contains("hci0"))
        #expect(Self.status("hci2", in: [down, up]) == ManagerStatus(cause: .noAdapter("hci2")))
    }

    @Test func derivesFromFailures() {
        let unsupported = ManagerStatus(cause: KernelController.cause(KernelTransportError(errno: EAFNOSUPPORT, operation: "socket"), "hci0"))
        #expect(unsupported.state == .unsupported)
        #expect(unsupported.cause == .noBluetoothSupport)
        #expect(unsupported.cause?.description.hasPrefix("no Bluetooth adapter: the kernel has no AF_BLUETOOTH support") == true)
        for code in [EPERM, EACCES] {
            let denied = ManagerStatus(cause: KernelController.cause(KernelTransportError(errno: code, operation: "socket"), "hci0"))
            #expect(denied.state == .unauthorized)
            #expect(denied.cause?.description == "permission denied: run as root or grant CAP_NET_ADMIN,CAP_NET_RAW")
        }
    }

    /// This machine's own kernel: without Bluetooth, the state must say so,
    /// and every kernel socket must fail as unsupported. With Bluetooth, the state must
    /// follow from the adapters, and those must be the ones sysfs shows.
    @Test func thisKernel() async throws {
        let probe = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue), BTPROTO_HCI)
        let probeErrno = errno
        if probe >= 0 { close(probe) }
        let current = KernelController(adapter: "hci0").status
        guard probe < 0 && probeErrno == EAFNOSUPPORT else {
            print("this kernel has AF_BLUETOOTH; state of hci0: \(current)")
            Self.checkKernelWithBluetooth(current, probeErrno: probe >= 0 ? nil : probeErrno)
            return
        }
        #expect(current.state == .unsupported)
        #expect(current.cause == .noBluetoothSupport)
        #expect(throws: KernelTransportError(kind: .unsupported, errno: EAFNOSUPPORT, operation: "socket(AF_BLUETOOTH, HCI)")) {
            try KernelAdapter.list()
        }
        await #expect(throws: KernelTransportError(kind: .unsupported, errno: EAFNOSUPPORT, operation: "socket(AF_BLUETOOTH, L2CAP)")) {
            try await L2CAPATTSocket.connect(to: Self.address, type: .public, timeout: .seconds(1))
        }
        #expect(throws: KernelTransportError.self) { try L2CAPATTListener() }
        #expect(throws: KernelTransportError.self) { try KernelLEScanner(adapterIndex: 0) }
    }

    /// A kernel with AF_BLUETOOTH. `probeErrno` is why a raw HCI socket could not be
    /// opened, nil if it could. `hci0` is the manager's state on hci0, the default adapter.
    static func checkKernelWithBluetooth(_ hci0: ManagerStatus, probeErrno: Int32?) {
        if let probeErrno {
            #expect([EPERM, EACCES].contains(probeErrno), "an HCI socket failed with errno \(probeErrno)")
            #expect(hci0.state == .unauthorized, "\(hci0)")
            #expect(hci0.cause == .permissionDenied, "\(hci0)")
            return
        }
        // The adapters the kernel listed are the ones sysfs names (read separately, so a
        // listing that loses or invents one shows here).
        let adapters: [KernelAdapter]
        do {
            adapters = try KernelAdapter.list()
        } catch {
            Issue.record("an HCI socket opened, but listing adapters failed: \(error)")
            return
        }
        let sysfs = ((try? FileManager.default.contentsOfDirectory(atPath: "/sys/class/bluetooth")) ?? [])
            .filter { $0.hasPrefix("hci") && !$0.contains(":") && Int($0.dropFirst(3)) != nil }
        #expect(Set(adapters.map(\.name)) == Set(sysfs), "listed \(adapters), sysfs \(sysfs)")
        // Every adapter's manager, and one on an adapter that is not there, in the state
        // its adapter's flags say, as the product reads them from the kernel.
        let missing = "hci\((adapters.map { Int($0.index) }.max() ?? -1) + 1)"
        var names = adapters.map(\.name) + [missing]
        if !names.contains("hci0") { names.append("hci0") }
        for name in names {
            let status = name == "hci0" ? hci0 : KernelController(adapter: name).status
            guard let adapter = adapters.first(where: { $0.name == name }) else {
                #expect(status == ManagerStatus(cause: .noAdapter(name)), "\(name): \(status)")
                continue
            }
            switch status.state {
            case .poweredOn:
                #expect(adapter.supportsLowEnergy && adapter.isUp, "\(adapter): \(status)")
            case .poweredOff:
                #expect(adapter.supportsLowEnergy && !adapter.isUp, "\(adapter): \(status)")
                #expect(status.cause == .adapterDown(name), "\(status)")
            case .unsupported:
                #expect(!adapter.supportsLowEnergy, "unsupported with an LE adapter: \(adapter): \(status)")
            case .unauthorized:
                Issue.record("unauthorized although an HCI socket opened: \(status)")
            case .unknown, .resetting:
                Issue.record("\(name): the kernel's state is read, never unknown or resetting: \(status)")
            }
        }
    }
}
