extension BluetoothTransport {
    /// The controller behind this transport.
    func makeBackend() -> any ControllerBackend {
        switch self {
        case .memory(let radio): MemoryController(radio: radio)
        case .h4, .userChannel: UserlandController(endpoint: description)
        default: UnwiredController(transport: description)
        }
    }
}
