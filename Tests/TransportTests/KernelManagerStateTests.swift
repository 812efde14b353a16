import CBlueZ
import Glibc
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
    /// and every kernel socket must fail as unsupported.
    @Test func thisKernel() async throws {
        let probe = socket(AF_BLUETOOTH, Int32(SOCK_RAW.rawValue), BTPROTO_HCI)
        let probeErrno = errno
        if probe >= 0 { close(probe) }
        let current = KernelManagerState.current()
        guard probe < 0 && probeErrno == EAFNOSUPPORT else {
            print("this kernel has AF_BLUETOOTH; state: \(current)")
            #expect(current.state != .unsupported || current.adapters.allSatisfy { !$0.supportsLowEnergy })
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
}
