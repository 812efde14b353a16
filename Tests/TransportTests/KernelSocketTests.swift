import EventLoop
import Glibc
import Testing
@testable import Transport

/// The socket plumbing under the L2CAP and HCI sockets, on socketpairs.
@Suite struct KernelSocketTests {
    @Test func retryingWaitsForDataAndTimesOutWithTheOperationName() async throws {
        let loop = try KernelEventLoop()
        defer { loop.shutdown() }
        let (a, b) = try SocketPair.make()
        defer { close(b) }
        let socket = try KernelSocket(adopting: a, loop: loop)
        defer { socket.close() }
        let read = { () async throws -> [UInt8] in
            try await socket.retrying("receive", direction: .read, timeout: .milliseconds(100)) { fd -> [UInt8]? in
                var buffer = [UInt8](repeating: 0, count: 16)
                let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if count >= 0 { return Array(buffer.prefix(count)) }
                if errno == EAGAIN { return nil }
                throw KernelTransportError.current("receive")
            }
        }
        await #expect(throws: KernelTransportError(kind: .timedOut, operation: "receive")) { try await read() }
        var bytes: [UInt8] = [0x03, 0x05, 0x02]
        #expect(send(b, &bytes, 3, 0) == 3)
        #expect(try await read() == [0x03, 0x05, 0x02])
    }

    @Test func closeEndsAPendingRetryWithClosed() async throws {
        let loop = try KernelEventLoop()
        defer { loop.shutdown() }
        let (a, b) = try SocketPair.make()
        defer { close(b) }
        let socket = try KernelSocket(adopting: a, loop: loop)
        // Runs on this thread until it waits on the loop, so the close finds it waiting.
        let reader = Task.immediate {
            try await socket.retrying("receive", direction: .read) { fd -> Int? in
                var byte: UInt8 = 0
                return recv(fd, &byte, 1, Int32(MSG_DONTWAIT)) == 1 ? 1 : nil
            }
        }
        socket.close()
        await #expect(throws: KernelTransportError(kind: .closed, operation: "receive")) { try await reader.value }
        #expect(socket.isClosed)
        #expect(loop.registrationCount == 0)
        #expect(throws: KernelTransportError(kind: .closed, operation: "send")) { try socket.withDescriptor("send") { _ in } }
    }
}
