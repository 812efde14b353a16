import Foundation
import HCI

/// One advertisement seen while scanning, like Core Bluetooth's advertisement data
/// dictionary plus the peripheral and RSSI of `didDiscover`.
///
/// Built from an HCI LE (Extended) Advertising Report with the shared AD parser
/// (``AdvertisingData``). A scan response is folded in with ``merge(scanResponse:)``.
public struct Advertisement: Hashable, Sendable {
    /// The advertiser's address.
    public var address: BluetoothAddress
    /// nil for an anonymous extended advertisement (no address sent).
    public var addressType: BluetoothAddressType?
    /// dBm, or nil when the controller did not measure it.
    public var rssi: Int?
    /// The complete local name if advertised, else the shortened one.
    public var localName: String?
    /// True when ``localName`` came from a Complete Local Name structure.
    public var isLocalNameComplete: Bool
    /// Service UUIDs from complete lists (16, 32 and 128-bit).
    public var serviceUUIDs: [BluetoothUUID]
    /// Service UUIDs from incomplete lists: the device offers more than it lists.
    public var incompleteServiceUUIDs: [BluetoothUUID]
    /// Service solicitation UUIDs.
    public var solicitedServiceUUIDs: [BluetoothUUID]
    /// Service data, by service UUID.
    public var serviceData: [BluetoothUUID: [UInt8]]
    /// Manufacturer specific data, by company identifier (the identifier bytes removed).
    public var manufacturerData: [UInt16: [UInt8]]
    /// The advertised Tx Power Level in dBm, else the TX power of an extended report.
    public var txPowerLevel: Int?
    /// The Flags AD structure, when sent.
    public var flags: AdvertisingFlags?
    /// The GAP Appearance value.
    public var appearance: UInt16?
    /// Whether the device accepts connections (ADV_IND, ADV_DIRECT_IND, or an extended
    /// advertisement with the connectable bit).
    public var isConnectable: Bool
    /// Whether the device accepts scan requests.
    public var isScannable: Bool
    /// Whether this came from a scan response only (no primary advertisement seen yet).
    public var isScanResponse: Bool
    /// The decoded advertising data, and the scan response if one was merged.
    public var data: AdvertisingData
    /// The scan response merged in, if any.
    public var scanResponseData: AdvertisingData?
    /// Reports this scan dropped immediately before this one because its consumer fell
    /// more than the scan's buffer behind; 0 when none were. Never lost silently.
    public var lostBefore: Int = 0
    /// True when this device was delivered before in this scan and its data or name
    /// changed since (a scan without duplicates delivers each device once, then again
    /// only with news).
    public var isUpdate: Bool = false

    /// Every service UUID, complete lists first.
    public var allServiceUUIDs: [BluetoothUUID] { serviceUUIDs + incompleteServiceUUIDs }

    /// Structures that did not decode, in the advertisement and its scan response: each
    /// failed alone, the rest still count.
    public var errors: [HCIDecodingError] {
        [data, scanResponseData].compactMap { $0 }.flatMap { d in
            d.structures.compactMap { s -> HCIDecodingError? in
                if case .failure(let e) = s.value { return e }
                return nil
            } + (d.framingError.map { [$0] } ?? [])
        }
    }

    /// The identifier `CentralManager` uses for this device.
    public var identifier: UUID {
        PeripheralIdentifier.make(address: address, type: addressType ?? .random)
    }

    /// An advertisement from its parts; the flags of the legacy event types and of the
    /// extended event type map onto these.
    public init(address: BluetoothAddress, addressType: BluetoothAddressType?, rssi: Int?,
                data: AdvertisingData, isConnectable: Bool, isScannable: Bool, isScanResponse: Bool,
                reportedTXPower: Int? = nil) {
        self.address = address
        self.addressType = addressType
        self.rssi = rssi
        self.isConnectable = isConnectable
        self.isScannable = isScannable
        self.isScanResponse = isScanResponse
        self.data = data
        localName = nil
        isLocalNameComplete = false
        serviceUUIDs = []
        incompleteServiceUUIDs = []
        solicitedServiceUUIDs = []
        serviceData = [:]
        manufacturerData = [:]
        txPowerLevel = reportedTXPower
        for value in data.values {
            switch value {
            case let .flags(bits): flags = AdvertisingFlags(rawValue: bits)
            case let .serviceUUIDs(list, complete):
                if complete { serviceUUIDs += list } else { incompleteServiceUUIDs += list }
            case let .serviceSolicitationUUIDs(list): solicitedServiceUUIDs += list
            case let .localName(name, complete):
                // A complete name wins over a shortened one, whatever their order.
                if complete || !isLocalNameComplete {
                    localName = name
                    isLocalNameComplete = complete
                }
            case let .txPowerLevel(level): txPowerLevel = Int(level)
            case let .serviceData(uuid, bytes): serviceData[uuid] = Array(bytes)
            case let .appearance(value): appearance = value
            case let .manufacturerData(company, bytes): manufacturerData[company] = Array(bytes)
            default: break
            }
        }
    }

    /// From one legacy report (HCI_LE_Advertising_Report).
    public init(_ report: LEAdvertisingReport) {
        // 0x00 ADV_IND, 0x01 ADV_DIRECT_IND, 0x02 ADV_SCAN_IND, 0x03 ADV_NONCONN_IND, 0x04 SCAN_RSP.
        let type = report.eventType
        self.init(address: report.address, addressType: report.addressType,
                  rssi: report.rssi == 127 ? nil : Int(report.rssi),
                  data: AdvertisingData(decoding: report.data),
                  isConnectable: type == 0x00 || type == 0x01,
                  isScannable: type == 0x00 || type == 0x02 || type == 0x04,
                  isScanResponse: type == 0x04)
    }

    /// From one extended report (HCI_LE_Extended_Advertising_Report).
    public init(_ report: LEExtendedAdvertisingReport) {
        let type = report.eventType
        self.init(address: report.address, addressType: BluetoothAddressType(rawValue: report.addressType),
                  rssi: report.rssi == 127 ? nil : Int(report.rssi),
                  data: AdvertisingData(decoding: report.data),
                  isConnectable: type & 0x01 != 0,
                  isScannable: type & 0x02 != 0,
                  isScanResponse: type & 0x08 != 0,
                  reportedTXPower: report.txPower == 127 ? nil : Int(report.txPower))
    }

    /// From a whole report in the extended shape (a legacy report mapped, or an
    /// extended chain joined), as the userland host and the kernel scanner deliver them.
    public init(_ report: AdvertisingReport) {
        self.init(address: report.address, addressType: BluetoothAddressType(rawValue: report.addressType),
                  rssi: report.rssi == 127 ? nil : Int(report.rssi), data: AdvertisingData(decoding: report.data[...]),
                  isConnectable: report.isConnectable, isScannable: report.eventType & 0x0002 != 0,
                  isScanResponse: report.isScanResponse)
        lostBefore = report.lostBefore
    }

    /// Folds a scan response (or a later advertisement) from the same device in: fields
    /// it carries fill in or replace ours; connectability stays that of the advertisement.
    public mutating func merge(scanResponse other: Advertisement) {
        if other.rssi != nil { rssi = other.rssi }
        if let name = other.localName, !isLocalNameComplete || other.isLocalNameComplete {
            localName = name
            isLocalNameComplete = other.isLocalNameComplete
        }
        for uuid in other.serviceUUIDs where !serviceUUIDs.contains(uuid) { serviceUUIDs.append(uuid) }
        for uuid in other.incompleteServiceUUIDs where !incompleteServiceUUIDs.contains(uuid) {
            incompleteServiceUUIDs.append(uuid)
        }
        for uuid in other.solicitedServiceUUIDs where !solicitedServiceUUIDs.contains(uuid) {
            solicitedServiceUUIDs.append(uuid)
        }
        serviceData.merge(other.serviceData) { _, new in new }
        manufacturerData.merge(other.manufacturerData) { _, new in new }
        txPowerLevel = other.txPowerLevel ?? txPowerLevel
        flags = other.flags ?? flags
        appearance = other.appearance ?? appearance
        if other.isScanResponse {
            scanResponseData = other.data
        } else {
            // A fresh primary advertisement: its connectability is authoritative.
            data = other.data
            isConnectable = other.isConnectable
            isScannable = other.isScannable
            isScanResponse = false
        }
    }

    /// Whether any advertised service (complete or incomplete list, or service data)
    /// is among `services`.
    public func advertises(anyOf services: [BluetoothUUID]) -> Bool {
        services.contains { uuid in
            serviceUUIDs.contains(uuid) || incompleteServiceUUIDs.contains(uuid) || serviceData[uuid] != nil
        }
    }
}
