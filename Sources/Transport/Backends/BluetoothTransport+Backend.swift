import Capture
import HCI

extension BluetoothTransport {
    /// The controller behind this transport, recording into `snoop` when given: the
    /// userland host every H4 packet, the kernel and memory backends the HCI a
    /// controller would have exchanged for their links (``SynthesizedHCI``).
    package func makeBackend(snoop: SnoopFile? = nil) -> any ControllerBackend {
        switch self {
        case .memory(let radio):
            if let snoop { radio.setTap(MemorySnoop(file: snoop).record) }
            return MemoryController(radio: radio)
        case .kernel(let adapter): return KernelController(adapter: adapter, snoop: snoop)
        case .h4, .userChannel: return UserlandController(endpoint: description, snoop: snoop)
        }
    }
}
