import ATT

/// What the tester learnt by reading one attribute during discovery.
public enum SurveyedValue: Hashable, Sendable {
    /// The whole value (read in parts when longer than one response).
    case value([UInt8])
    /// The first parts of a value whose whole could not be read (the parts ran past the
    /// 512-octet maximum, or a later Read Blob failed).
    case longerThan([UInt8])
    /// The IUT refused the read with this error.
    case refused(ATTErrorCode)
    /// The read gave no usable value; the reason says why.
    case unknown(String)

    /// The bytes of a ``value(_:)``.
    public var bytes: [UInt8]? { if case .value(let v) = self { v } else { nil } }

    /// The bytes read, whole or the first parts.
    public var knownPrefix: [UInt8]? {
        switch self {
        case .value(let v), .longerThan(let v): v
        case .refused, .unknown: nil
        }
    }
}
