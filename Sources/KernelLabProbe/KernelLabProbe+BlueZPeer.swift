import ATT
import GATT
import HCI
import Transport

extension KernelLabProbe {
    /// Our GATT client on hci0 against BlueZ's btgatt-server on hci1 (started
    /// by the caller with `-i hci1 -r`, Heart Rate service on): an independent
    /// peer over the kernel's own ATT stack.
    static func bluezPeerScenario(log: ProbeLog) async {
        guard let adapters = try? KernelAdapter.list(),
              let central = adapters.first(where: { $0.index == 0 }), let peripheral = adapters.first(where: { $0.index == 1 }) else {
            log.fail("bluez: adapters", "need hci0 and hci1")
            return
        }
        // btgatt-server listens but does not advertise; we advertise for it.
        let advertiser: KernelLEAdvertiser
        do {
            advertiser = try KernelLEAdvertiser(adapterIndex: peripheral.index)
            try await advertiser.start(data: [0x02, 0x01, 0x06])
        } catch {
            log.fail("bluez: advertise", "\(error)")
            return
        }
        defer { advertiser.close() }
        let socket: L2CAPATTSocket
        do {
            socket = try await L2CAPATTSocket.connect(to: peripheral.address, type: .public, from: central.address, timeout: .seconds(15))
        } catch {
            log.fail("bluez: connect", "\(error)")
            return
        }
        var client = KernelGATTClient(socket: socket, configuration: GATTClientConfiguration(rxMTU: 64, exchangesMTUOnStart: false))
        do {
            try await client.start()
            try await check(log, "bluez: exchange MTU", client.perform(.exchangeMTU)) { response in
                if case .mtu(let mtu) = response { return "ATT_MTU \(mtu)" }
                return nil
            }
            let discovered = try await client.perform(.discoverDatabase)
            guard case .success(.database(let database)) = discovered else {
                log.fail("bluez: discover database", "\(discovered)")
                return
            }
            log.pass("bluez: discover database", "\(database.services.count) services, \(database.characteristics.count) characteristics")
            guard let name = database.characteristic(uuid: BluetoothUUID(0x2A00)),
                  let measurement = database.characteristic(uuid: BluetoothUUID(0x2A37)),
                  let controlPoint = database.characteristic(uuid: BluetoothUUID(0x2A39)) else {
                log.fail("bluez: expected characteristics", "no Device Name, Heart Rate Measurement or Control Point")
                return
            }
            try await check(log, "bluez: read device name", client.perform(.readLongValue(name.valueHandle))) {
                $0.value.map { "\"\(String(decoding: $0, as: UTF8.self))\"" }
            }
            // btgatt-server (BlueZ 5.66) checks a Prepare Write's offset against the
            // value gatt-db holds, which is empty for its app-held device name, so
            // every part after the first is refused with Invalid Offset. Our client
            // must report that error and cancel the queue (Execute Write 0x00).
            let longName = Array("attune wrote this name through a long write to btgatt-server".utf8)
            switch try await client.perform(.writeLongValue(name.valueHandle, longName)) {
            case .failure(let error) where "\(error)".contains("0x07"):
                log.pass("bluez: long write refused by BlueZ", "\(error)")
            case let other:
                log.fail("bluez: long write refused by BlueZ", "\(other)")
            }
            let shortName = Array("attune-central".utf8)
            try await check(log, "bluez: write device name", client.perform(.writeValue(name.valueHandle, shortName))) { _ in
                "\(shortName.count) bytes"
            }
            try await check(log, "bluez: read device name back", client.perform(.readLongValue(name.valueHandle))) {
                $0.value == shortName ? "\"attune-central\"" : nil
            }
            try await check(log, "bluez: write control point", client.perform(.writeValue(controlPoint.valueHandle, [0x01]))) { _ in
                "Reset Energy Expended"
            }
            try await check(log, "bluez: subscribe heart rate", client.perform(.subscribe(valueHandle: measurement.valueHandle, .notify))) { _ in
                "CCCD 0001"
            }
            let handle = measurement.valueHandle
            let notification = try await client.waitForEvent {
                if case .notification(handle, _) = $0 { return true }
                return false
            }
            if case .notification(_, let value) = notification, !value.isEmpty {
                log.pass("bluez: heart rate notification", hexString(Array(value), empty: ""))
            } else {
                log.fail("bluez: heart rate notification", "\(notification)")
            }
            try await check(log, "bluez: unsubscribe", client.perform(.unsubscribe(valueHandle: handle))) { _ in "CCCD 0000" }
        } catch {
            log.fail("bluez: link", "\(error)")
        }
        // btgatt-server keeps the link; we end it, with no request outstanding.
        socket.close()
    }
}
