#if canImport(Glibc)
import Glibc
#endif
import ControllerTestSupport
import Foundation
import Testing

/// Scripted controllers' UNIX socket paths are unique per listener (issue 24): each lives in
/// a directory mkdtemp made for it, so no two tests, runs or stale files can share a path.
@Suite("UNIX socket listeners: a path of their own")
struct UnixSocketListenerTests {
    @Test("listeners with one prefix, made at once, each get their own directory and path, and close removes both")
    func uniquePathsRemovedOnClose() throws {
        let listeners = (0..<32).map { _ in UnixSocketListener(prefix: "attune-unique") }
        #expect(Set(listeners.map(\.path)).count == listeners.count)
        let directories = listeners.map { ($0.path as NSString).deletingLastPathComponent }
        #expect(Set(directories).count == listeners.count)
        for directory in directories {
            var status = stat()
            try #require(stat(directory, &status) == 0)
            #expect(status.st_mode & 0o777 == 0o700, "\(directory) is private to this user")
        }
        for listener in listeners { listener.close() }
        for directory in directories {
            #expect(!FileManager.default.fileExists(atPath: directory), "\(directory) was left behind")
        }
    }

    @Test("the host reaches the listener at its path: a connection is accepted")
    func connectsAtPath() throws {
        let listener = UnixSocketListener(prefix: "attune-unique")
        defer { listener.close() }
        let client = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(client >= 0)
        defer { close(client) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in listener.path.utf8.enumerated() { raw[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(connected == 0, "connect to \(listener.path): errno \(errno)")
        let accepted = listener.accept()
        #expect(accepted >= 0)
        if accepted >= 0 { close(accepted) }
    }
}
