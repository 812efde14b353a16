#if canImport(Glibc)
import Glibc
#endif
import Foundation
import ControllerTestSupport
import HCI
import Testing
@testable import Transport

/// An H4 endpoint stays a typed value from the transport to the host: it is never
/// rendered to a string and parsed back, which loses endpoints whose text form is
/// ambiguous. A serial path with an `@` in it reads back as PATH@BAUD.
@Suite("H4 endpoint stays typed to the host", .serialized)
struct H4EndpointTypedTests {
    @Test("a serial endpoint whose path holds '@' reaches its controller through the userland backend")
    func serialPathWithAt() async throws {
        let (master, pty) = try H4StreamEdgeTests.pty()
        guard case .serial(let ptyPath, _) = pty else { Issue.record("not a serial endpoint"); return }
        let link = NSTemporaryDirectory() + "attune-pty@\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try #require(symlink(ptyPath, link) == 0)
        defer { unlink(link) }
        let endpoint = H4Endpoint.serial(path: link, baudRate: 115_200)
        // The round trip the old path took would have lost the endpoint.
        #expect((try? H4Endpoint(parsing: endpoint.description)) != endpoint)

        let script = Thread {
            ScriptedController(descriptor: master).answerCommands(count: 9)
        }
        script.start()
        let backend = BluetoothTransport.h4(endpoint).makeBackend()
        let updates = backend.statusUpdates()
        var status = backend.status
        if status.state != .poweredOn && status.cause == nil {
            for await update in updates {
                status = update
                if update.state == .poweredOn || update.cause != nil { break }
            }
        }
        #expect(status.state == .poweredOn, "\(status)")
        Glibc.close(master)
    }
}
