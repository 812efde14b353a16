#if canImport(Glibc)
import Glibc
#endif
import ControllerTestSupport
import Foundation
import HCI
import Transport

/// Many scripted controllers served by ONE thread of the test (poll over UNIX sockets),
/// so tests can count the threads the hosts add without counting the controllers.
///
/// Each controller answers the initialisation sequence (27-byte × 8 ACL buffers), can
/// bring up connection 0x0001, answers an ATT Read Request on it with a Read Response
/// (and returns the buffer), can leave one opcode unanswered, and can flood its host
/// with ACL packets for an unknown handle for as long as the stream takes them.
final class ControllerFarm: @unchecked Sendable {
    struct Controller {
        var socket: UnixSocketListener
        var listener: Int32 { socket.descriptor }
        var fd: Int32 = -1
        var decoder = H4StreamDecoder()
        var outgoing: [UInt8] = []
        var ignoredOpcode: UInt16?
        var flooding = false
        var floodBytes = 0
        var commandsAnswered = 0
    }

    private let lock = NSLock()
    private var controllers: [Controller] = []
    private var stopping = false
    private var thread: Thread?
    /// Signalled when the farm's thread has left its loop.
    private let finished = DispatchSemaphore(value: 0)
    /// 64 KiB of ACL packets for handle 0x0E, which no connection has.
    private let floodChunk: [UInt8] = {
        let packet: [UInt8] = [0x02, 0x0E, 0x20, 0x05, 0x00, 0x01, 0x00, 0x04, 0x00, 0x0A]
        return Array((0..<(65_536 / packet.count)).map { _ in packet }.joined())
    }()

    /// Starts the farm's one thread.
    func start() {
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        self.thread = thread
        thread.start()
    }

    /// A new controller listening at a fresh UNIX path; returns its index and endpoint.
    func add(ignoring opcode: UInt16? = nil) throws -> (Int, H4Endpoint) {
        let socket = UnixSocketListener(prefix: "attune-farm")
        // The farm's one thread polls every listener; an accept must never block it.
        guard fcntl(socket.descriptor, F_SETFL, fcntl(socket.descriptor, F_GETFL) | O_NONBLOCK) == 0 else {
            socket.close()
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        lock.lock()
        defer { lock.unlock() }
        controllers.append(Controller(socket: socket, ignoredOpcode: opcode))
        return (controllers.count - 1, .unix(path: socket.path))
    }

    /// Sends LE Connection Complete for handle 0x0001 (we are central).
    func connect(_ index: Int) {
        let body: [UInt8] = [0x01, 0x00, 0x01, 0x00, 0x00, 0x01, 1, 2, 3, 4, 5, 0xF0, 0x18, 0, 0, 0, 0xF4, 1, 0]
        queue(index, [0x04, 0x3E, UInt8(body.count)] + body)
    }

    func setFlooding(_ index: Int, _ on: Bool) {
        lock.lock()
        controllers[index].flooding = on
        lock.unlock()
    }

    /// Bytes of flood the controller's host has taken so far.
    func floodBytes(_ index: Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return controllers[index].floodBytes
    }

    func stop() {
        lock.lock()
        stopping = true
        lock.unlock()
        // The thread sees `stopping` within one poll (5 ms): wait for it to leave, so
        // nothing it holds is closed under it.
        if thread != nil { finished.wait() }
        for controller in controllers {
            if controller.fd >= 0 { Glibc.close(controller.fd) }
            controller.socket.close()
        }
    }

    private func queue(_ index: Int, _ bytes: [UInt8]) {
        lock.lock()
        controllers[index].outgoing += bytes
        lock.unlock()
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            lock.lock()
            if stopping { lock.unlock(); return }
            var fds = controllers.map { controller -> pollfd in
                if controller.fd < 0 { return pollfd(fd: controller.listener, events: Int16(POLLIN), revents: 0) }
                let wantsOut = !controller.outgoing.isEmpty || controller.flooding
                return pollfd(fd: controller.fd, events: Int16(POLLIN) | (wantsOut ? Int16(POLLOUT) : 0), revents: 0)
            }
            lock.unlock()
            // The test's own controllers may poll; the hosts under test may not.
            _ = poll(&fds, nfds_t(fds.count), 5)
            lock.lock()
            for index in fds.indices where index < controllers.count && fds[index].revents != 0 {
                if controllers[index].fd < 0 {
                    let accepted = accept(controllers[index].listener, nil, nil)
                    if accepted >= 0 {
                        _ = fcntl(accepted, F_SETFL, fcntl(accepted, F_GETFL) | O_NONBLOCK)
                        controllers[index].fd = accepted
                    }
                    continue
                }
                let fd = controllers[index].fd
                if fds[index].revents & Int16(POLLIN) != 0 {
                    let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                    if n > 0 {
                        controllers[index].decoder.append(buffer[0..<n])
                        while let packet = try? controllers[index].decoder.nextPacket() { answer(index, packet) }
                    }
                }
                if fds[index].revents & Int16(POLLOUT) != 0 {
                    if !controllers[index].outgoing.isEmpty {
                        let n = controllers[index].outgoing.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                        if n > 0 { controllers[index].outgoing.removeFirst(n) }
                    } else if controllers[index].flooding {
                        let n = floodChunk.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                        // Whole packets only, so the flood never splits one it then abandons.
                        if n > 0 {
                            let whole = n / 10 * 10
                            controllers[index].floodBytes += n
                            if whole < n { controllers[index].outgoing += floodChunk[n..<(whole + 10)] }
                        }
                    }
                }
            }
            lock.unlock()
        }
    }

    /// Called with the lock held.
    private func answer(_ index: Int, _ packet: [UInt8]) {
        switch packet.first {
        case 0x01:
            let opcode = UInt16(packet[1]) | UInt16(packet[2]) << 8
            if opcode == controllers[index].ignoredOpcode { return }
            let parameters: [UInt8]
            switch opcode {
            case 0x1002: parameters = [0] + Array(repeating: 0, count: 64)
            case 0x1003, 0x2003: parameters = [0] + Array(repeating: 0, count: 8)
            case 0x2002: parameters = [0, 27, 0, 8]
            case 0x1009: parameters = [0, 6, 5, 4, 3, 2, 1]
            default: parameters = [0]
            }
            controllers[index].outgoing += [0x04, 0x0E, UInt8(3 + parameters.count), 1, UInt8(opcode & 0xFF), UInt8(opcode >> 8)] + parameters
            controllers[index].commandsAnswered += 1
        case 0x02 where packet.count >= 10 && packet[7] == 0x04 && packet[9] == 0x0A:
            // ATT Read Request on connection 1: Read Response, then the buffer back.
            controllers[index].outgoing += [0x02, 0x01, 0x20, 0x06, 0x00, 0x02, 0x00, 0x04, 0x00, 0x0B, 0x42]
            controllers[index].outgoing += [0x04, 0x13, 0x05, 0x01, 0x01, 0x00, 0x01, 0x00]
        default:
            break
        }
    }
}

/// The threads of this process, by id, from /proc/self/task.
func processThreadIDs() -> Set<Int> {
    Set(((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []).compactMap { Int($0) })
}

/// How many times a thread gave up the CPU of its own accord (it slept or waited).
func voluntarySwitches(_ tid: Int) -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/task/\(tid)/status", encoding: .utf8),
          let line = text.split(separator: "\n").first(where: { $0.hasPrefix("voluntary_ctxt_switches:") }),
          let value = Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") else { return 0 }
    return value
}
