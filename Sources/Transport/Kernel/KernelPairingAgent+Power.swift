extension KernelPairingAgent {
    /// mgmt Set Powered (doc/mgmt-api.txt).
    static let setPowered: UInt16 = 0x0005

    /// Powers an adapter off or on (mgmt Set Powered) and returns once the kernel did it.
    /// Off, the kernel first disconnects every link (HCI_Disconnect, Remote Device
    /// Terminated due to Power Off, 0x15, to the peer; our L2CAP sockets report the link
    /// closed, as Remote User Terminated Connection in the kernel lab) and stops scanning
    /// and advertising; on, it runs its own HCI_Reset and initialisation of the controller.
    func setPowered(_ on: Bool, adapterIndex: UInt16, timeout: Duration = .seconds(10)) async throws {
        _ = try await command(Self.setPowered, index: adapterIndex, parameters: [on ? 1 : 0], timeout: timeout)
    }
}
