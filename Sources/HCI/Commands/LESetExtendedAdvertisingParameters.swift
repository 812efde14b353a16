/// HCI_LE_Set_Extended_Advertising_Parameters [v1] (Vol 4 Part E §7.8.53).
public struct LESetExtendedAdvertisingParameters: HCICommand, Hashable {
    public static let opcode = HCIOpcode(ogf: 0x08, ocf: 0x0036)

    /// Advertising_Event_Properties bits.
    public struct EventProperties: OptionSet, Hashable, Sendable {
        public var rawValue: UInt16
        public init(rawValue: UInt16) { self.rawValue = rawValue }
        public static let connectable = EventProperties(rawValue: 1 << 0)
        public static let scannable = EventProperties(rawValue: 1 << 1)
        public static let directed = EventProperties(rawValue: 1 << 2)
        public static let highDutyCycleDirected = EventProperties(rawValue: 1 << 3)
        /// Use legacy PDUs, so legacy scanners see the set too.
        public static let legacy = EventProperties(rawValue: 1 << 4)
        public static let anonymous = EventProperties(rawValue: 1 << 5)
        public static let includeTxPower = EventProperties(rawValue: 1 << 6)
    }

    public var advertisingHandle: UInt8
    public var properties: EventProperties
    /// In units of 0.625 ms, 24 bits.
    public var primaryIntervalMin: UInt32
    public var primaryIntervalMax: UInt32
    public var primaryChannelMap: UInt8
    public var ownAddressType: OwnAddressType
    public var peerAddressType: UInt8
    public var peerAddress: BluetoothAddress
    public var filterPolicy: UInt8
    /// 0x7F lets the controller choose.
    public var txPower: Int8
    /// 0x01 LE 1M, 0x03 LE Coded.
    public var primaryPHY: UInt8
    public var secondaryMaxSkip: UInt8
    public var secondaryPHY: UInt8
    public var advertisingSID: UInt8
    public var scanRequestNotificationEnable: Bool

    public init(advertisingHandle: UInt8 = 0,
                properties: EventProperties = [.connectable, .scannable, .legacy],
                primaryIntervalMin: UInt32 = 0x20, primaryIntervalMax: UInt32 = 0x20,
                primaryChannelMap: UInt8 = 0x07, ownAddressType: OwnAddressType,
                peerAddressType: UInt8 = 0, peerAddress: BluetoothAddress = BluetoothAddress(rawValue: 0),
                filterPolicy: UInt8 = 0, txPower: Int8 = 0x7F, primaryPHY: UInt8 = 0x01,
                secondaryMaxSkip: UInt8 = 0, secondaryPHY: UInt8 = 0x01, advertisingSID: UInt8 = 0,
                scanRequestNotificationEnable: Bool = false) {
        self.advertisingHandle = advertisingHandle
        self.properties = properties
        self.primaryIntervalMin = primaryIntervalMin
        self.primaryIntervalMax = primaryIntervalMax
        self.primaryChannelMap = primaryChannelMap
        self.ownAddressType = ownAddressType
        self.peerAddressType = peerAddressType
        self.peerAddress = peerAddress
        self.filterPolicy = filterPolicy
        self.txPower = txPower
        self.primaryPHY = primaryPHY
        self.secondaryMaxSkip = secondaryMaxSkip
        self.secondaryPHY = secondaryPHY
        self.advertisingSID = advertisingSID
        self.scanRequestNotificationEnable = scanRequestNotificationEnable
    }

    public func encodeParameters(into buffer: inout [UInt8]) {
        buffer.append(advertisingHandle)
        buffer.appendLittleEndian(properties.rawValue)
        buffer.appendLittleEndian24(primaryIntervalMin)
        buffer.appendLittleEndian24(primaryIntervalMax)
        buffer.append(primaryChannelMap)
        buffer.append(ownAddressType.rawValue)
        buffer.append(peerAddressType)
        buffer.append(peerAddress)
        buffer.append(filterPolicy)
        buffer.append(UInt8(bitPattern: txPower))
        buffer.append(primaryPHY)
        buffer.append(secondaryMaxSkip)
        buffer.append(secondaryPHY)
        buffer.append(advertisingSID)
        buffer.append(scanRequestNotificationEnable ? 1 : 0)
    }
}
