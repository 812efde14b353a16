extension PeripheralManager {
    /// Serves `database` whole, in place of GAP, GATT and whatever was added: what a
    /// ``CapturedPeripheral`` does, so that a central discovers the captured handles.
    /// Only before any central connects (a database swapped under a connection would
    /// need Service Changed, which ``add(_:)`` and ``remove(_:)`` send).
    ///
    /// - Parameter rxMTU: the receive MTU to announce in Exchange MTU (23…517).
    func serve(_ database: AttributeDatabase, rxMTU: UInt16?) throws(AttuneError) {
        guard connected.isEmpty else {
            throw .operationNotSupported("the database cannot be replaced while centrals are connected")
        }
        var configuration = GATTServerConfiguration()
        if let rxMTU { configuration.rxMTU = min(517, max(23, rxMTU)) }
        server = GATTServer(database: database, configuration: configuration)
    }
}
