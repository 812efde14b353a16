extension AdvertisingReport {
    /// A legacy report (HCI_LE_Advertising_Report) in the extended shape, so one
    /// consumer handles both kinds of scanning.
    public init(legacy report: LEAdvertisingReport) {
        self.init(address: report.address, addressType: report.addressType.rawValue,
                  eventType: HCIHost.extendedEventType(legacy: report.eventType), rssi: report.rssi,
                  data: Array(report.data))
    }
}
