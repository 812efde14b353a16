import Glibc
import HCI
import Testing
@testable import Transport

@Suite struct KernelTransportErrorTests {
    @Test(arguments: [
        (ECONNREFUSED, KernelTransportError.Kind.connectionRefused),
        (EHOSTDOWN, .hostDown),
        (ETIMEDOUT, .timedOut),
        (ECONNRESET, .connectionReset),
        (EPERM, .unauthorized),
        (EACCES, .unauthorized),
        (EAFNOSUPPORT, .unsupported),
        (EBUSY, .busy),
        (ECONNABORTED, .connectionAborted),
        (ENOTCONN, .notConnected),
        (EMSGSIZE, .messageTooLong),
        (ENODEV, .noSuchAdapter),
        (EIO, .other),
    ])
    func mapsErrno(_ code: Int32, _ kind: KernelTransportError.Kind) {
        let error = KernelTransportError(errno: code, operation: "connect")
        #expect(error.kind == kind)
        #expect(error.errno == code)
        #expect(error.description.hasPrefix("connect: "))
    }

    @Test func infersTheHCIDisconnectReasonFromErrno() {
        #expect(KernelTransportError(errno: ECONNRESET, operation: "receive").disconnectReason == HCIStatus.remoteUserTerminatedConnection)
        #expect(KernelTransportError(errno: ETIMEDOUT, operation: "receive").disconnectReason == HCIStatus.connectionTimeout)
        #expect(KernelTransportError(errno: ECONNABORTED, operation: "receive").disconnectReason == HCIStatus.connectionTerminatedByLocalHost)
        #expect(KernelTransportError(errno: EIO, operation: "receive").disconnectReason == nil)
    }
}
