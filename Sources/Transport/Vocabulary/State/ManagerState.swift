/// The state of a `CentralManager` or `PeripheralManager`, like `CBManagerState`.
///
/// Derived from facts about the transport: no AF_BLUETOOTH or no adapter is
/// ``unsupported``, EPERM or EACCES is ``unauthorized``, an adapter that is down is
/// ``poweredOff``. ``ManagerStateCause`` says which fact, and what to do about it.
public enum ManagerState: String, Hashable, Sendable, Codable, CustomStringConvertible {
    /// Not determined yet: the transport is still opening.
    case unknown
    /// The controller is being reset; the state will change again shortly.
    case resetting
    /// No usable Bluetooth LE controller behind this transport.
    case unsupported
    /// The process may not use the controller.
    case unauthorized
    /// The controller exists but is down or blocked.
    case poweredOff
    /// Ready: scanning, connecting and advertising work.
    case poweredOn

    public var description: String { rawValue }
}
