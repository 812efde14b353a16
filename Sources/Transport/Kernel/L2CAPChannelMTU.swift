/// The L2CAP MTUs of a connected channel, as the kernel reports them: the
/// ceiling for the ATT_MTU the bearer may negotiate.
public struct L2CAPChannelMTU: Hashable, Sendable {
    /// The largest SDU this side accepts.
    public var receive: Int
    /// The largest SDU the peer accepts.
    public var send: Int

    public init(receive: Int, send: Int) {
        self.receive = receive
        self.send = send
    }
}
