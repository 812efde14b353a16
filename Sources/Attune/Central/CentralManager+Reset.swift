extension CentralManager {
    /// Resets the Bluetooth controller and brings it back: the remedy for a controller
    /// that stopped reporting advertisements, or holds a connect attempt that never
    /// ends. Core Bluetooth has no equivalent (the system owns the controller there).
    ///
    /// - On the userland host (H4, user channel): HCI_Reset, then the host's whole
    ///   initialisation again (event masks, buffer sizes, our address).
    /// - On the kernel transport: the adapter is powered off and on through the kernel's
    ///   management channel, which resets the controller (needs CAP_NET_ADMIN).
    /// - On a ``MemoryRadio``: this manager's controller alone; the other managers on the
    ///   radio keep theirs.
    ///
    /// What the reset ends is reported as it would be for any other cause: every scan
    /// stream of this manager finishes (scan again afterwards), each connected peripheral
    /// gets its ``LifecycleEvent/disconnected(_:reconnectAt:)`` with the link's reason
    /// (Connection Terminated By Local Host, 0x16, where the host resets the controller;
    /// what the kernel reported over the kernel transport), and a connect in progress
    /// fails. Peripherals with automatic reconnect reconnect once the controller is back.
    /// ``state`` goes through ``ManagerState/resetting`` (or ``ManagerState/poweredOff``,
    /// over the kernel transport) back to ``ManagerState/poweredOn``.
    ///
    /// - Returns: once the controller is usable again.
    /// - Throws: ``AttuneError/controllerTimeout(_:)`` when the controller does not answer
    ///   the reset (then it is left unusable: ``status`` says why), or
    ///   ``AttuneError/unavailable(_:)`` when it was not powered on to begin with or
    ///   failed to come back.
    public func resetAdapter() async throws(AttuneError) {
        if let cause = backend.status.cause { throw .unavailable(cause) }
        endScans()
        try await backend.resetController()
    }
}
