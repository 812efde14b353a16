import Glibc

/// Whether bluetoothd is running beside us.
///
/// Raw sockets work with or without it, but it shares the adapter:
/// - it listens on the LE ATT channel itself, so our ``L2CAPATTListener``
///   bound to the same adapter address fails with `EADDRINUSE`
///   (``KernelTransportError/Kind/busy``), and incoming connections go to its
///   GATT server;
/// - it starts and stops scanning and advertising through mgmt, which can
///   make our raw HCI scan or advertising commands fail with Command
///   Disallowed, or silently replace our advertising data;
/// - it may connect to or disconnect from devices we also talk to.
/// Stop it (`systemctl stop bluetooth`) for a gateway that owns the adapter.
public enum BluetoothDaemonPresence {
    /// True when a process named `bluetoothd` is running (read from /proc).
    public static func isRunning() -> Bool {
        guard let directory = opendir("/proc") else { return false }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.first?.isNumber == true, let file = fopen("/proc/\(name)/comm", "r") else { continue }
            var buffer = [CChar](repeating: 0, count: 64)
            let line = fgets(&buffer, Int32(buffer.count), file)
            fclose(file)
            if line != nil, String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                .trimmingSuffixNewline() == "bluetoothd" {
                return true
            }
        }
        return false
    }
}

extension String {
    fileprivate func trimmingSuffixNewline() -> String {
        hasSuffix("\n") ? String(dropLast()) : self
    }
}
