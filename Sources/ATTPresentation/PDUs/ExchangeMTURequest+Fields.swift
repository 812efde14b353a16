import ATT

extension ExchangeMTURequest: PDUFieldsPresentable {
    public var fields: [(String, JSONValue)] { [("client_rx_mtu", .int(Int(clientRxMTU)))] }
}
