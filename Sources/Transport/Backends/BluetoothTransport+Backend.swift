import Capture
import HCI

extension BluetoothTransport {
    /// The controller behind this transport, recording into `snoop` when given: the
    /// userland host every H4 packet, the kernel and memory backends the HCI a
    /// controller would have exchanged for their links (``SynthesizedHCI``).
    /// `bonds` gives the userland host its identity and bonds, and `pairing` says how its
    /// links pair; the kernel transport pairs through the kernel's SMP, its agent answering
    /// from `pairing`, and keeps the kernel's keys in `bonds` (without bluetoothd).
    package func makeBackend(snoop: SnoopFile? = nil, bonds: (any BondKeeper)? = nil,
                             pairing: PairingConfiguration = PairingConfiguration()) -> any ControllerBackend {
        switch self {
        case .memory(let radio):
            if let snoop { radio.setTap(MemorySnoop(file: snoop).record) }
            return MemoryController(radio: radio)
        case .kernel(let adapter): return KernelController(adapter: adapter, snoop: snoop, bonds: bonds, pairing: pairing)
        case .h4(let endpoint):
            return UserlandController(endpoint: .success(endpoint), snoop: snoop, bonds: bonds, pairing: pairing)
        case .userChannel(let adapter):
            return UserlandController(endpoint: Result { () throws(H4Endpoint.ParseError) in try .userChannel(adapter: adapter) },
                                      snoop: snoop, bonds: bonds, pairing: pairing)
        }
    }
}
