@testable import Attune
@testable import Transport

/// A peripheral on the memory radio that speaks raw ATT, so tests can make it lie:
/// `answer` gets each PDU the central sends and the peripheral's end of the link, and
/// returns the PDUs to send back (or acts on the link itself, such as closing it).
enum RawATTPeer {
    static let address = BluetoothAddress(rawValue: 0xC0_AA_00_00_00_01)

    /// Exchange MTU answered with 23, which every scripted peer needs first.
    static func mtu(_ pdu: [UInt8]) -> [[UInt8]]? {
        pdu.first == 0x02 ? [[0x03, 23, 0x00]] : nil
    }

    static func start(on radio: MemoryRadio,
                      answer: @escaping @Sendable (_ pdu: [UInt8], _ link: any ATTLink) -> [[UInt8]]) throws {
        try radio.startAdvertising(from: address, AdvertisingParameters(localName: "Raw")) { link in
            Task {
                while true {
                    let batch = await link.receive()
                    if batch.isEmpty { return }
                    for event in batch {
                        switch event {
                        case .received(let pdu):
                            for reply in answer(pdu, link) { link.send(reply) }
                        case .closed:
                            return
                        }
                    }
                }
            }
        }
    }

    /// A central connected to the raw peer without discovery, with the given ATT
    /// transaction timeout.
    static func connect(_ radio: MemoryRadio, transactionTimeout: Duration = .seconds(30),
                        discover: Bool = false) async throws(AttuneError) -> (CentralManager, Peripheral) {
        let central = CentralManager(transport: .memory(radio))
        let peripheral = central.peripheral(address: address, type: .random)
        await peripheral.setTransactionTimeout(transactionTimeout)
        try await central.connect(peripheral, timeout: hangGuard, discoverDatabase: discover)
        return (central, peripheral)
    }

    /// A readable characteristic at value handle 0x0003, as if discovered.
    static let readable = Characteristic(uuid: BluetoothUUID(0x2A19), properties: [.read], declarationHandle: 2,
                                         valueHandle: 3, endHandle: 3, serviceHandle: 1)
}
