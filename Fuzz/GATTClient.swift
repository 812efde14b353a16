// fuzz-modules: BluetoothCore ATT CCrypto BluetoothCrypto GATT
// libFuzzer target: drives the GATT client engine with arbitrary server PDUs, commands,
// cancellations and time steps. Nothing may trap, every PDU the client sends must decode
// and fit the ATT_MTU, and the command queue stays bounded.
import ATT
import GATT

let cached = DiscoveredDatabase(services: [
    DiscoveredService(uuid: 0x180D, handleRange: AttributeHandleRange(start: 1, end: 8), characteristics: [
        DiscoveredCharacteristic(declarationHandle: 2, properties: [.notify, .indicate, .read], valueHandle: 3, uuid: 0x2A37,
                                 endHandle: 4, descriptors: [DiscoveredDescriptor(handle: 4, uuid: 0x2902)]),
        DiscoveredCharacteristic(declarationHandle: 5, properties: [.indicate], valueHandle: 6, uuid: 0x2A05, endHandle: 7,
                                 descriptors: [DiscoveredDescriptor(handle: 7, uuid: 0x2902)]),
    ]),
], databaseHash: Array(repeating: 1, count: 16))

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGATTClient(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    var client = GATTLink(
        configuration: GATTClientConfiguration(rxMTU: 64, canRaiseSecurity: true, discoversOnStart: input.first.map { $0 & 1 == 0 } ?? true,
                                               signingKey: SigningKey(csrk: Array(repeating: 0x22, count: 16))),
        database: cached)
    var now = MonotonicTime.zero
    var ids: [GATTRequestID] = []
    func check(_ actions: [GATTClientAction], _ mtu: Int) {
        for case let .send(bytes) in actions {
            precondition(bytes.count <= mtu, "sent \(bytes.count) bytes at ATT_MTU \(mtu)")
            precondition((try? ATTPDU.decode(bytes)) != nil, "sent an undecodable PDU")
        }
    }
    check(client.start(at: now), client.mtu)
    var i = 1
    while i < input.count {
        let op = input[i]
        i += 1
        let arg = i < input.count ? input[i] : 0
        switch op {
        case 0xF0:
            now = now + .seconds(Int64(arg % 40))
            i += 1
            check(client.tick(at: now), client.mtu)
        case 0xF1:
            i += 1
            let commands: [GATTClientCommand] = [
                .discoverAllPrimaryServices(), .readLongValue(AttributeHandle(UInt16(arg))), .writeLongValue(3, Array(repeating: arg, count: Int(arg))),
                .reliableWrite([PreparedWrite(handle: 3, value: Array(repeating: 1, count: Int(arg) % 90))]),
                .subscribe(valueHandle: 3), .unsubscribe(valueHandle: 3), .readMultipleVariable([3, 6]),
                .discoverAllCharacteristics(in: AttributeHandleRange(start: 1, end: AttributeHandle(UInt16(arg) + 1))),
                .findIncludedServices(in: .all), .signedWriteWithoutResponse(3, [arg]), .discoverDatabase,
            ]
            let (id, actions) = client.perform(commands[Int(arg) % commands.count], at: now)
            ids.append(id)
            check(actions, client.mtu)
        case 0xF2:
            i += 1
            if !ids.isEmpty { check(client.cancel(ids[Int(arg) % ids.count], at: now), client.mtu) }
        default:
            // A server PDU of `op % 40` bytes starting with `arg`.
            let length = Int(op % 40)
            let end = min(input.count, i + length)
            let pdu = input[i..<end]
            i = end
            check(client.receive(pdu, at: now), client.mtu)
        }
        precondition(client.client.queuedCount <= ids.count + 4, "queue grew past the commands given")
    }
    return 0
}
