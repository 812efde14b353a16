/// Receives every H4 packet the I/O edge writes or reads, in order, for a capture such as
/// `--snoop FILE`. Called on the edge's I/O paths, so it must not block for long.
public protocol H4PacketRecorder: Sendable {
    /// - Parameters:
    ///   - packet: the whole H4 packet, indicator byte first.
    ///   - fromHost: true for packets the host sent to the controller.
    func record(_ packet: [UInt8], fromHost: Bool)
    /// Writes out anything buffered; called when the edge closes.
    func finish()
    /// Whether link keys are recorded as sent; by default they are zeroed (``H4KeyMask``).
    var keepsKeys: Bool { get }
}

extension H4PacketRecorder {
    public var keepsKeys: Bool { false }
}
