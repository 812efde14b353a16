import Glibc

/// The manager state of kernel Bluetooth, in Core Bluetooth's terms, with a
/// sentence that tells a user what to do about it.
public struct KernelManagerState: Hashable, Sendable, CustomStringConvertible {
    public enum State: String, Hashable, Sendable {
        case poweredOn, poweredOff, unauthorized, unsupported
    }

    public var state: State
    /// Why the state is what it is, for people.
    public var explanation: String
    /// The adapters that were found (empty when they could not be listed).
    public var adapters: [KernelAdapter]

    public init(state: State, explanation: String, adapters: [KernelAdapter]) {
        self.state = state
        self.explanation = explanation
        self.adapters = adapters
    }

    /// The state of this machine's kernel Bluetooth now.
    public static func current() -> KernelManagerState {
        do {
            return derive(adapters: try KernelAdapter.list())
        } catch let error as KernelTransportError {
            return derive(failure: error)
        } catch {
            return KernelManagerState(state: .unsupported, explanation: "\(error)", adapters: [])
        }
    }

    /// The state when listing adapters failed.
    public static func derive(failure: KernelTransportError) -> KernelManagerState {
        switch failure.kind {
        case .unsupported:
            return KernelManagerState(state: .unsupported,
                                      explanation: "no Bluetooth adapter: the kernel has no AF_BLUETOOTH support", adapters: [])
        case .unauthorized:
            return KernelManagerState(state: .unauthorized,
                                      explanation: "permission denied: run as root or grant CAP_NET_ADMIN,CAP_NET_RAW", adapters: [])
        default:
            return KernelManagerState(state: .unsupported, explanation: "cannot list Bluetooth adapters: \(failure)", adapters: [])
        }
    }

    /// The state given the adapters the kernel reported.
    public static func derive(adapters: [KernelAdapter]) -> KernelManagerState {
        let le = adapters.filter(\.supportsLowEnergy)
        if adapters.isEmpty {
            return KernelManagerState(state: .unsupported, explanation: "no Bluetooth adapter: the kernel has Bluetooth but no controller", adapters: adapters)
        }
        if le.isEmpty {
            return KernelManagerState(state: .unsupported, explanation: "no adapter supports Bluetooth Low Energy", adapters: adapters)
        }
        if let up = le.first(where: \.isUp) {
            return KernelManagerState(state: .poweredOn, explanation: "\(up.name) is up", adapters: adapters)
        }
        return KernelManagerState(state: .poweredOff,
                                  explanation: "every LE adapter is down: power one on (btmgmt --index N power on)", adapters: adapters)
    }

    public var description: String { "\(state.rawValue): \(explanation)" }
}
