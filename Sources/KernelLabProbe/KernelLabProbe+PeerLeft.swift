import Glibc
import class EventLoop.KernelEventLoop
import class Transport.L2CAPATTSocket
import struct Transport.KernelTransportError

extension KernelLabProbe {
    /// The central leaves while the peripheral is sending: a send takes the kernel's
    /// report of the link's end (`sk_err` is given to one system call only), and the
    /// receive that comes after must still end with the link's reason. Before, that
    /// receive found EAGAIN on a hung-up socket and spun without end, holding the
    /// actor of `attune serve` that owned the link (issue 24: serve missed a central
    /// leaving). The order is forced here: every send happens before the receive.
    static func peerLeftScenario(log: ProbeLog) async {
        guard let lab = await LabPeripheral.start(log: log, scenario: "peer left") else { return }
        defer { lab.close() }
        let served: L2CAPATTSocket
        do {
            async let accepted = lab.listener.accept()
            let central = try await L2CAPATTSocket.connect(to: lab.peripheral.address, type: .public,
                                                           from: lab.central.address, timeout: .seconds(30))
            served = try await accepted
            // One exchange first, as a real central makes (closing a socket the moment
            // it connected trips a kernel bug in 6.1.192 when the peer's socket closes).
            try await central.send([0x02, 0x17, 0x00])
            _ = try await served.receive(timeout: .seconds(30))
            try await served.send([0x03, 0x17, 0x00])
            _ = try await central.receive(timeout: .seconds(30))
            // The central leaves: the kernel ends the link once its last channel closes.
            central.close()
        } catch {
            log.fail("peer left: connect", "\(error)")
            return
        }
        log.pass("peer left: connect")
        // Notifications until one fails: that send read the link's end.
        let notification: [UInt8] = [0x1B, 0x03, 0x00, 0x01]
        var sendError: (any Error)?
        for _ in 0..<3000 {
            do {
                _ = try served.trySend(notification)
            } catch {
                sendError = error
                break
            }
            try? await KernelEventLoop.shared().sleep(for: .milliseconds(10))
        }
        guard let sendError else {
            log.fail("peer left: a send fails", "30 s of sends and the link never ended")
            return
        }
        log.pass("peer left: a send fails", "\(sendError)")
        // The receive now: it must end, with the reason the send saw. A guard on the
        // loop's own thread closes the socket if it has not ended in a minute: a spin
        // holds the only thread of the guest's task pool, so no task could.
        let loop = try? KernelEventLoop.shared()
        let guardTimer = loop?.schedule(after: .seconds(60)) { served.close() }
        defer { if let loop, let guardTimer { loop.cancel(guardTimer) } }
        let start = KernelEventLoop.now()
        do {
            let batch = try await served.receiveBatch(maximum: 64)
            log.fail("peer left: the receive after the send ends", "received \(batch.count) PDUs")
        } catch let error as KernelTransportError where error.disconnectReason != nil {
            log.pass("peer left: the receive after the send ends",
                     "\(error) after \(ms(elapsed(since: start))) ms, reason \(error.disconnectReason!)")
        } catch {
            log.fail("peer left: the receive after the send ends", "\(error) after \(ms(elapsed(since: start))) ms")
        }
        served.close()
    }
}
