/// A decoded value with the name it is published under, from an advertisement decoder.
public struct DecodedReading: Hashable, Sendable {
    /// The name, unique within one advertisement: `temperature`, `temperature_2`, `uuid`.
    public var key: String
    /// What is published.
    public var value: DecodedValue
    /// An event (a button press), published without retain; otherwise state.
    public var isEvent: Bool

    /// A reading published as `key`.
    public init(key: String, value: DecodedValue, isEvent: Bool = false) {
        self.key = key
        self.value = value
        self.isEvent = isEvent
    }
}
