import ATT

/// The notifications and indications among the PDUs a transport dropped at a link's
/// bounded inbox, by the characteristic value handle they carried: what the link's
/// owner adds to the next notification of that characteristic as its `lostBefore`.
package struct DroppedNotifications: Sendable, Hashable {
    /// Values dropped per value handle.
    package var byHandle: [AttributeHandle: Int] = [:]
    /// Notifications whose handles could not be read (a malformed Multiple Handle Value
    /// Notification): counted on the link's next notification, whichever it is.
    package var unattributed = 0

    package init() {}

    package var isEmpty: Bool { byHandle.isEmpty && unattributed == 0 }

    /// Counts `pdu` if it is a notification or an indication; other PDUs (commands,
    /// requests) are no value of any stream, and only the transport's total counts them.
    package mutating func count(_ pdu: [UInt8]) {
        guard let opcode = pdu.first else { return }
        switch opcode {
        case 0x1B, 0x1D:  // Handle Value Notification, Indication: the handle, then the value.
            guard pdu.count >= 3 else {
                unattributed += 1
                return
            }
            byHandle[AttributeHandle(UInt16(pdu[1]) | UInt16(pdu[2]) << 8), default: 0] += 1
        case 0x23:  // Multiple Handle Value Notification: (handle, length, value) tuples.
            var offset = 1
            var counted = false
            while offset + 4 <= pdu.count {
                let handle = UInt16(pdu[offset]) | UInt16(pdu[offset + 1]) << 8
                let length = Int(UInt16(pdu[offset + 2]) | UInt16(pdu[offset + 3]) << 8)
                byHandle[AttributeHandle(handle), default: 0] += 1
                counted = true
                offset += 4 + length
            }
            if !counted { unattributed += 1 }
        default:
            break
        }
    }

    /// Takes the count for `handle` and the unattributed count: what the next
    /// notification of that characteristic carries.
    package mutating func take(for handle: AttributeHandle) -> Int {
        defer { unattributed = 0 }
        return (byHandle.removeValue(forKey: handle) ?? 0) + unattributed
    }

    /// Adds counts taken from a link.
    package mutating func merge(_ other: DroppedNotifications) {
        byHandle.merge(other.byHandle, uniquingKeysWith: +)
        unattributed += other.unattributed
    }
}
