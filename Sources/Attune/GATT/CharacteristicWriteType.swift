/// How ``Peripheral/writeValue(_:for:type:)`` writes, like `CBCharacteristicWriteType`.
public enum CharacteristicWriteType: Hashable, Sendable {
    /// Write Request (or the long-write procedure): the peripheral confirms.
    case withResponse
    /// Write Command: no confirmation, flow-controlled by
    /// ``Peripheral/canSendWriteWithoutResponse``.
    case withoutResponse
}
