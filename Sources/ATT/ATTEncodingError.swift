/// Why a PDU could not be encoded.
public enum ATTEncodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The encoded PDU would be `length` bytes, more than the ATT_MTU allows.
    /// Attune never truncates silently; callers that may truncate (Read Response,
    /// notifications) do so explicitly before encoding.
    case exceedsMTU(length: Int, mtu: Int)
    /// A field value cannot be represented on the wire (for example a list entry
    /// longer than a one-byte length field can describe).
    case invalidField(String)

    public var description: String {
        switch self {
        case let .exceedsMTU(length, mtu): "PDU of \(length) bytes exceeds ATT_MTU \(mtu)"
        case let .invalidField(why): "cannot encode: \(why)"
        }
    }
}
