import ATT

extension ExchangeMTUResponse: PDUFieldsPresentable {
    public var fields: [(String, JSONValue)] { [("server_rx_mtu", .int(Int(serverRxMTU)))] }
}
