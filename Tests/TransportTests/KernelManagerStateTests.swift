import CBlueZ
import Foundation
import Glibc
import HCI
import Testing
@testable import Transport

@Suite struct KernelManagerStateTests {
    static let address = BluetoothAddress("00:AA:01:00:00:00")!

    @Test func derivesFromAdapters() {
        #expect(KernelManagerState.derive(adapters: []).state == .unsupported)
        let classic = KernelAdapter(index: 0, name: "hci0", address: Self.address, isUp: true, supportsLowEnergy: false)
        #expect(KernelManagerState.derive(adapters: [classic]).state == .unsupported)
        let down = KernelAdapter(index: 0, name: "hci0", address: Self.address, isUp: false, supportsLowEnergy: true)
        #expect(KernelManagerState.derive(adapters: [down]).state == .poweredOff)
        let up = KernelAdapter(index: 1, name: "hci1", address: Self.address, isUp: true, supportsLowEnergy: true)
        let both = KernelManagerState.derive(adapters: [down, up])
        #expect(both.state == .poweredOn)
        #expect(both.explanation.contains("hci1"))
    }

    @Test func derivesFromFailures() {
        let unsupported = KernelManagerState.derive(failure: KernelTransportError(errno: EAFNOSUPPORT, operation: "socket"))
        #expect(unsupported.state == .unsupported)
        #expect(unsupported.explanation == "no Bluetooth adapter: the kernel has no AF_BLUETOOTH support")
        for code in [EPERM, EACCES] {
            let denied = KernelManagerState.derive(failure: KernelTransportError(errno: code, operation: "socket"))
            #expect(denied.state == .unauthorized)
            #expect(denied.explanation == "permission denied: run as root or grant CAP_NET_ADMIN,CAP_NET_RAW")
        }
    }

    /// This machine's own kernel: without Bluetooth, the state must say so,
    /// and every kernel socket must fail as unsupported. With Bluetooth, the state must
    /// follow from the adapters, and those must be the ones sysfs shows.
    @Test func thisKernel() async throws {
        let probe = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue), BTPROTO_HCI)
        let probeErrno = errno
        if probe >= 0 { close(probe) }
        let current = KernelManagerState.current()
        guard probe < 0 && probeErrno == EAFNOSUPPORT else {
            print("this kernel has AF_BLUETOOTH; state: \(current)")
            Self.checkKernelWithBluetooth(current, probeErrno: probe >= 0 ? nil : probeErrno)
            return
        }
        #expect(current.state == .unsupported)
        #expect(current.explanation == "no Bluetooth adapter: the kernel has no AF_BLUETOOTH support")
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
    /// opened, nil if it could.
    static func checkKernelWithBluetooth(_ current: KernelManagerState, probeErrno: Int32?) {
        if let probeErrno {
            #expect([EPERM, EACCES].contains(probeErrno), "an HCI socket failed with errno \(probeErrno)")
            #expect(current.state == .unauthorized, "\(current)")
            #expect(current.explanation == "permission denied: run as root or grant CAP_NET_ADMIN,CAP_NET_RAW")
            return
        }
        // The adapters the kernel listed are the ones sysfs names (read separately, so a
        // listing that loses or invents one shows here).
        let sysfs = ((try? FileManager.default.contentsOfDirectory(atPath: "/sys/class/bluetooth")) ?? [])
            .filter { $0.hasPrefix("hci") && !$0.contains(":") && Int($0.dropFirst(3)) != nil }
        #expect(Set(current.adapters.map(\.name)) == Set(sysfs), "listed \(current.adapters), sysfs \(sysfs)")
        let low = current.adapters.filter(\.supportsLowEnergy)
        switch current.state {
        case .poweredOn:
            let named = low.filter(\.isUp).map(\.name)
            #expect(named.contains { current.explanation == "\($0) is up" }, "\(current)")
        case .poweredOff:
            #expect(!low.isEmpty && low.allSatisfy { !$0.isUp }, "\(current)")
        case .unsupported:
            #expect(low.isEmpty, "unsupported with an LE adapter: \(current)")
        case .unauthorized:
            Issue.record("unauthorized although an HCI socket opened: \(current)")
        }
    }
}
