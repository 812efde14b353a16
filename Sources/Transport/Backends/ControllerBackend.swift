import HCI

/// What the managers need from a controller, whatever the transport: its state,
/// scanning, connecting as a central, advertising and accepting as a peripheral.
///
/// The kernel transport (HCI socket + L2CAP sockets), the userland host (H4, user
/// channel) and ``MemoryRadio`` implement it; nothing above it knows which one runs.
///
/// Contract for implementations:
/// - ``status`` comes from facts: map socket errnos with
///   ``ManagerStateCause/init(errno:adapter:)`` and an adapter that is down to
///   ``ManagerStateCause/adapterDown(_:)``; publish every change on ``statusUpdates()``.
/// - Advertising reports become ``Advertisement``s through the shared AD parser
///   (`Advertisement(LEAdvertisingReport)` / `Advertisement(LEExtendedAdvertisingReport)`).
/// - ``connect(to:type:)`` throws ``AttuneError/connectionFailed(_:)`` with
///   `.hci(status)` when LE Connection Complete fails, ``AttuneError/unavailable(_:)``
///   when the controller cannot be used, and ``AttuneError/cancelled`` when its task is
///   cancelled (then it must also cancel the attempt: LE Create Connection Cancel, or
///   close the connecting socket). The connect timeout is the lifecycle's, not the
///   backend's.
/// - Every ``ATTLink`` ends its event stream with exactly one `.closed`, carrying the
///   Disconnection Complete reason (`.hci(status)`) or `.transport(text)` for I/O errors.
package protocol ControllerBackend: Sendable {
    /// Our own address on this controller.
    var address: BluetoothAddress { get }
    var addressType: BluetoothAddressType { get }
    var status: ManagerStatus { get }
    /// Every change of ``status`` from now on.
    func statusUpdates() -> AsyncStream<ManagerStatus>
    /// Starts delivering advertising reports; returns a token for ``stopScanning(_:)``.
    func startScanning(_ report: @escaping @Sendable (Advertisement) -> Void) throws(AttuneError) -> Int
    func stopScanning(_ token: Int)
    /// Establishes a link to a peripheral (LE Create Connection). Waits until the peer
    /// is reachable; task cancellation abandons the attempt.
    func connect(to address: BluetoothAddress, type: BluetoothAddressType) async throws(AttuneError) -> any ATTLink
    /// Starts advertising; each central that connects arrives through `accept`.
    func startAdvertising(_ parameters: AdvertisingParameters,
                          accept: @escaping @Sendable (any ATTLink) -> Void) throws(AttuneError)
    func stopAdvertising()
    /// Resumes the advertising ``startAdvertising(_:accept:)`` set up, after a
    /// connection stopped it (a controller stops connectable advertising once a central
    /// connects), or pauses it while no more centrals may connect. The data and the
    /// acceptor stay; enabling what is already on, or disabling what is off, does nothing.
    func setAdvertisingEnabled(_ enabled: Bool)
    /// Returns once every stop asked for so far (of scanning, of advertising) has reached
    /// the controller: a process that exits after it leaves the controller idle, not
    /// scanning on for a host that is gone.
    func settle() async
    /// Resets the controller and brings it back: every link ends (its `.closed` event
    /// carries the reason), a connect in progress fails, scanning and advertising stop,
    /// and the status goes through ``ManagerState/resetting`` or
    /// ``ManagerState/poweredOff`` back to ``ManagerState/poweredOn``. Returns once the
    /// controller is usable again; throws ``AttuneError/controllerTimeout(_:)`` when it
    /// does not answer, ``AttuneError/unavailable(_:)`` when it was not usable to begin with.
    func resetController() async throws(AttuneError)
    /// Controller input the host dropped and counted (Number Of Completed Packets for
    /// unknown handles, stray completions, malformed events...), by kind, since the
    /// backend was made; all zero where the kernel owns HCI.
    var hostWarnings: HostWarningCounts { get }
    /// The managers forgot the bond with this peer: a Security Manager that keeps its own
    /// copy of the keys (the kernel's) forgets them too. Says what happened there.
    func forgetBond(with address: BluetoothAddress, type: BluetoothAddressType) async -> BondRemoval
}

extension ControllerBackend {
    package var hostWarnings: HostWarningCounts { HostWarningCounts() }
    /// The userland host and the memory radio pair with keys from the store alone:
    /// the store's copy was the only one.
    package func forgetBond(with address: BluetoothAddress, type: BluetoothAddressType) async -> BondRemoval {
        .storeOnly
    }
}
