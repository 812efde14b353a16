#if canImport(Glibc)
import Glibc
#endif

/// Why a manager is not ``ManagerState/poweredOn``: each cause names what is wrong and
/// how to fix it, so the CLI and logs can print ``description`` as it is.
public enum ManagerStateCause: Hashable, Sendable, CustomStringConvertible {
    /// The kernel has no AF_BLUETOOTH sockets (module missing or not built).
    case noBluetoothSupport
    /// The named adapter does not exist.
    case noAdapter(String)
    /// EPERM or EACCES on the socket.
    case permissionDenied
    /// The adapter exists but is down.
    case adapterDown(String)
    /// rfkill blocks the adapter.
    case adapterBlocked(String)
    /// Another user (bluetoothd, for the user channel) holds the adapter.
    case adapterBusy(String)
    /// The controller on the far side of an H4 or memory transport cannot be reached.
    case transportUnreachable(String)
    /// The controller did not finish its initialization or reset.
    case controllerFailed(String)

    /// The state this cause leads to.
    public var state: ManagerState {
        switch self {
        case .noBluetoothSupport, .noAdapter, .adapterBusy, .transportUnreachable, .controllerFailed: .unsupported
        case .permissionDenied: .unauthorized
        case .adapterDown, .adapterBlocked: .poweredOff
        }
    }

    /// The cause behind an errno from opening a Bluetooth socket or binding it to
    /// `adapter`; nil for errors that are not about the adapter.
    public init?(errno code: Int32, adapter: String) {
        switch code {
        case EAFNOSUPPORT, EPROTONOSUPPORT: self = .noBluetoothSupport
        case ENODEV: self = .noAdapter(adapter)
        case EPERM, EACCES: self = .permissionDenied
        case ENETDOWN: self = .adapterDown(adapter)
        case ERFKILL: self = .adapterBlocked(adapter)
        case EBUSY, EALREADY: self = .adapterBusy(adapter)
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .noBluetoothSupport:
            "no Bluetooth adapter: the kernel has no AF_BLUETOOTH support"
                + " (load the bluetooth module, or use an H4 transport such as --transport tcp:HOST:PORT)"
        case .noAdapter(let name):
            "no Bluetooth adapter: \(name) does not exist (list adapters with `btmgmt info`, or pick another with --transport)"
        case .permissionDenied:
            "permission denied: run as root or grant CAP_NET_ADMIN,CAP_NET_RAW"
        case .adapterDown(let name):
            "adapter \(name) is powered off: bring it up with `btmgmt --index \(Self.index(name)) power on`"
        case .adapterBlocked(let name):
            "adapter \(name) is blocked by rfkill: run `rfkill unblock bluetooth`"
        case .adapterBusy(let name):
            "adapter \(name) is in use: the HCI user channel needs it down and free (`btmgmt --index \(Self.index(name)) power off`, or stop bluetoothd)"
        case .transportUnreachable(let what):
            "controller unreachable: \(what) (start the controller or emulator first, and check the --transport address)"
        case .controllerFailed(let what):
            "controller failed: \(what) (reset or replug the controller)"
        }
    }

    private static func index(_ name: String) -> String {
        name.hasPrefix("hci") ? String(name.dropFirst(3)) : name
    }
}
