extension BluetoothTransport {
    /// The controller behind this transport.
    func makeBackend() -> any ControllerBackend {
        switch self {
        case .memory(let radio): MemoryController(radio: radio)
        case .kernel(let adapter): KernelController(adapter: adapter)
        case .h4, .userChannel: UserlandController(endpoint: description)
        }
    }
}
