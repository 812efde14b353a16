/// Keypress Notification (Vol 3 Part H §3.5.8), during Passkey Entry.
public struct KeypressNotification: Hashable, Sendable, CustomStringConvertible {
    public static let code = SMPCode.keypressNotification

    /// The notification type (Table 3.9); reserved values are kept.
    public struct NotificationType: RawRepresentable, Hashable, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let passkeyEntryStarted = Self(rawValue: 0)
        public static let passkeyDigitEntered = Self(rawValue: 1)
        public static let passkeyDigitErased = Self(rawValue: 2)
        public static let passkeyCleared = Self(rawValue: 3)
        public static let passkeyEntryCompleted = Self(rawValue: 4)
    }

    public let notificationType: NotificationType

    public init(notificationType: NotificationType) { self.notificationType = notificationType }

    init(parameters: ArraySlice<UInt8>) { notificationType = NotificationType(rawValue: parameters[parameters.startIndex]) }

    func encode(into out: inout [UInt8]) { out.append(contentsOf: [Self.code.rawValue, notificationType.rawValue]) }

    public var description: String { "KeypressNotification(\(notificationType.rawValue))" }
}
