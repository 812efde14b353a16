extension ATTBearer {
    /// Encodes a Handle Value Notification of `value` for `handle`, truncated to
    /// ATT_MTU − 3 octets as Vol 3 Part G §4.10 says. Not generic, so a server in another
    /// module sends notifications without run-time generic look-ups.
    public mutating func sendNotification(_ handle: AttributeHandle, _ value: [UInt8],
                                          into buffer: inout [UInt8]) throws(ATTBearerError) {
        if let reason = closeReason { throw .closed(reason) }
        let pdu = HandleValueNotification(handle: handle, value: value.prefix(mtu - 3))
        do { try pdu.encode(into: &buffer, mtu: mtu) } catch { throw .encoding(error) }
    }
}
