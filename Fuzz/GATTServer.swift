// fuzz-modules: BluetoothCore ATT CCrypto BluetoothCrypto GATT
// libFuzzer target: drives the GATT server engine with arbitrary PDU sequences, time
// steps and application actions. Nothing may trap, every emitted PDU must decode and fit
// the server's MTU, and per-client state stays bounded.
import ATT
import GATT

let database: AttributeDatabase = try! AttributeDatabase {
    ServiceDefinition.genericAttribute()
    Service(BluetoothUUID(0x180D), id: "main") {
        Characteristic(BluetoothUUID(0x2A37), properties: [.read, .notify, .indicate], value: [1, 2, 3])
        Characteristic(BluetoothUUID(0x2A39), properties: [.read, .write], extendedProperties: [.reliableWrite], value: [0, 0])
        Characteristic(BluetoothUUID(0x2A3A), properties: [.read, .write], value: [9], maximumLength: 4)
        Characteristic(BluetoothUUID(0x2A3B), properties: [.read, .write], dynamic: true)
        Characteristic(BluetoothUUID(0x2A3C), properties: [.read, .write], permissions: .init(read: .encrypted, write: .authorized))
        Characteristic(BluetoothUUID(0x2A3D), properties: [.read, .writeWithoutResponse, .authenticatedSignedWrites], value: [0])
        Characteristic(BluetoothUUID(0x2A3E), properties: [.read, .write], extendedProperties: [.reliableWrite]) {
            Descriptor.userDescription("long", writable: true)
        }
    }
    Service(BluetoothUUID(0x180F), primary: false, id: "battery", reservedHandles: 3) {
        Characteristic(BluetoothUUID(0x2A19), properties: [.read], value: [100])
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGATTServer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    var configuration = GATTServerConfiguration()
    configuration.prepareQueueLimit = 8
    configuration.indicationQueueLimit = 8
    var server = GATTServer(database: database, configuration: configuration)
    var out = GATTServerOutput()
    var now = MonotonicTime.zero
    var connected = true
    server.connect(1, security: .none, peer: PeerIdentity("fuzz"), at: now, into: &out)
    server.setSigningKey(Array(repeating: 0x11, count: 16), authenticated: false, for: 1)
    var pendingReads: [ApplicationRequestID] = []
    var pendingWrites: [ApplicationRequestID] = []
    let notifiable = database.characteristics[4].valueHandle  // 0x2A37 (after the GATT service's four)

    var i = 0
    while i < input.count {
        let op = input[i]
        i += 1
        switch op {
        case 0xF0:
            now = now + .seconds(11)
            server.tick(at: now, into: &out)
        case 0xF1:
            _ = try? server.indicate([UInt8(i & 0xFF)], characteristic: notifiable, at: now, into: &out)
        case 0xF2:
            _ = try? server.notify(Array(repeating: 0xAA, count: i % 600), characteristic: notifiable, into: &out)
        case 0xF3:
            if let id = pendingReads.popLast() {
                server.completeRead(id, with: i % 3 == 0 ? .failure(.unlikelyError) : .success(Array(repeating: 7, count: i % 40)),
                                    at: now, into: &out)
            }
        case 0xF4:
            if let id = pendingWrites.popLast() { server.completeWrite(id, error: i % 2 == 0 ? nil : .writeNotPermitted, at: now, into: &out) }
        case 0xF5:
            _ = try? server.modifyDatabase(at: now, into: &out) { db throws(DatabaseError) in
                if db.services.count > 3 { return try db.removeService(at: db.services.last!.range.start) }
                return try db.insert([Attribute(handle: 0x0F00, type: GATTAttributeType.primaryService,
                                                permissions: .readOnly, value: [0x0A, 0x18])])
            }
        case 0xF6:
            if connected { server.disconnect(1, into: &out) } else { server.connect(1, peer: PeerIdentity("fuzz"), at: now, into: &out) }
            connected.toggle()
        case 0xF7:
            server.updateSecurity(.authenticated, for: 1)
        default:
            let length = Int(op)
            let end = min(input.count, i + length)
            server.receive(input[i..<end], from: 1, at: now, into: &out)
            i = end
        }
        for pdu in out.pdus {
            let bytes = out.bytes(of: pdu)
            guard bytes.count <= 512 else { fatalError("PDU of \(bytes.count) bytes exceeds the server's MTU") }
            guard (try? ATTPDU.decode(bytes)) != nil else { fatalError("server emitted an undecodable PDU \(hexString(bytes))") }
        }
        for event in out.events {
            switch event {
            case .readRequested(let r): pendingReads.append(r.id)
            case .writeRequested(let w) where w.expectsResponse: pendingWrites.append(w.id)
            case .connectionClosed: connected = false
            default: break
            }
        }
        if pendingReads.count > 64 { pendingReads.removeFirst(32) }
        if pendingWrites.count > 64 { pendingWrites.removeFirst(32) }
        out.removeAll()
    }
    return 0
}
