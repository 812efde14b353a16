import Glibc

/// Whether bluetoothd is running beside us.
///
/// Raw sockets work with or without it, but it shares the adapters. Observed
/// in the kernel lab (Debian 6.1.192, BlueZ 5.66, bluetoothd idle):
/// - our ``L2CAPATTListener`` still binds to the adapter's ATT channel, and
///   our sockets connect and accept; bluetoothd attaches its own GATT client
///   and server to the same links;
/// - because bluetoothd holds its own channel on the link, a peer closing
///   *our* channel no longer drops the link, so a central learns about it only
///   when the link itself goes down;
/// - raw HCI scan and advertising commands are accepted while bluetoothd is
///   neither scanning nor advertising (what happens while it is has not been
///   tried: both drive the same controller state, so expect refusals or one
///   overriding the other);
/// - bluetoothd is the pairing agent: running ``KernelPairingAgent`` as well
///   makes both answer the kernel, and pairing fails (`EACCES`).
/// A gateway that owns the adapters stops it (`systemctl stop bluetooth`).
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
