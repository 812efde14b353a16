import CBlueZ

/// Transports: the kernel's L2CAP and HCI sockets, H4 streams, and the in-memory pipe.
public enum Transport {
    /// The address family number the kernel uses for Bluetooth sockets.
    public static let addressFamily: Int32 = AF_BLUETOOTH
}
