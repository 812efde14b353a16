import ATT
import BluetoothCore
import GATT

extension ServerTestCatalog {
    static var pushTests: [ServerTestCase] { [notification, indication] }

    static let notification = ServerTestCase(
        "GATT/SR/GAN/BV-01-C", "Characteristic Value Notification",
        precondition: "a characteristic with the Notify property and a CCCD; the IUT notifies on its own",
        spec: "Vol 3 Part G §4.10.1, §3.3.3.3; Part F §3.4.7.1") { p, t in
        push(indication: false, p, t)
    }

    static let indication = ServerTestCase(
        "GATT/SR/GAI/BV-01-C", "Characteristic Value Indication",
        precondition: "a characteristic with the Indicate property and a CCCD; the IUT indicates on its own",
        spec: "Vol 3 Part G §4.11.1, §3.3.3.3; Part F §3.4.7.2–§3.4.7.3") { p, t in
        push(indication: true, p, t)
    }

    /// Enables the CCCD, waits for the IUT's notification or indication (the tester
    /// confirms an indication), then disables the CCCD again.
    static func push(indication: Bool, _ p: IUTProfile, _ t: Transcript) -> ProcedureStep {
        let property: CharacteristicProperties = indication ? .indicate : .notify
        let kind = indication ? "indication" : "notification"
        // Service Changed last: it indicates only when the database changes, which a
        // test cannot bring about.
        let candidates = p.characteristics.filter { $0.properties.contains(property) && $0.clientConfigurationHandle != nil }
        guard let c = candidates.first(where: { $0.uuid != GATTAttributeType.serviceChanged }) ?? candidates.first,
              let cccd = c.clientConfigurationHandle else {
            return .finish(.notApplicable("no characteristic with the \(indication ? "Indicate" : "Notify") property and a CCCD"))
        }
        let enable: [UInt8] = indication ? [0x02, 0x00] : [0x01, 0x00]
        let received = t.received
        guard let first = received.first else {
            return .request(PDUCoding.bytes(.writeRequest(WriteRequest(handle: cccd, value: enable))))
        }
        let enabled = Judge.response(first, is: .writeResponse, spec: "Vol 3 Part G §3.3.3.3")
        guard case .pass = enabled else { return .finish(enabled) }
        let pushed = received.dropFirst().first { $0.first == (indication ? ATTOpcode.handleValueIndication : .handleValueNotification).rawValue }
        if pushed == nil && !t.pushWaitExpired { return .awaitPush(c.valueHandle, indication: indication) }
        // Disable again, then judge.
        let disabled = received.dropFirst().first { $0.first != ATTOpcode.handleValueIndication.rawValue
            && $0.first != ATTOpcode.handleValueNotification.rawValue }
        guard let disabled else { return .request(PDUCoding.bytes(.writeRequest(WriteRequest(handle: cccd, value: [0x00, 0x00])))) }
        let off = Judge.response(disabled, is: .writeResponse, spec: "Vol 3 Part G §3.3.3.3")
        guard case .pass = off else { return .finish(off) }
        guard let pushed else {
            return .inconclusive(p, "the IUT sent no \(kind) of \(c.valueHandle) in the wait; it sends one only when its "
                                 + "application has something to say (PTS asks an operator to make it)")
        }
        guard pushed.count - 3 <= p.mtu - 3 else {
            return .finish(.fail("\(kind) of \(pushed.count - 3) octets, more than ATT_MTU − 3 (Vol 3 Part F §3.4.7)"))
        }
        return .finish(.pass(note: "\(kind) of \(pushed.count - 3) octets on \(c.valueHandle)"))
    }
}

private extension ProcedureStep {
    static func inconclusive(_ p: IUTProfile, _ reason: String) -> ProcedureStep { .finish(.inconclusive(reason)) }
}
