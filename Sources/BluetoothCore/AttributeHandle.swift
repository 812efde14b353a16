/// An attribute handle (Vol 3 Part F §3.2.2). 0x0000 is reserved and never names an attribute.
public struct AttributeHandle: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible,
    ExpressibleByIntegerLiteral
{
    public var rawValue: UInt16

    @inlinable public init(rawValue: UInt16) { self.rawValue = rawValue }
    @inlinable public init(_ rawValue: UInt16) { self.rawValue = rawValue }
    @inlinable public init(integerLiteral value: UInt16) { rawValue = value }

    public static let reserved = AttributeHandle(0x0000)
    public static let min = AttributeHandle(0x0001)
    public static let max = AttributeHandle(0xFFFF)

    @inlinable public var isValid: Bool { rawValue != 0 }

    /// The next handle, or nil after 0xFFFF.
    @inlinable public var successor: AttributeHandle? {
        rawValue == .max ? nil : AttributeHandle(rawValue &+ 1)
    }

    @inlinable
    public static func < (a: AttributeHandle, b: AttributeHandle) -> Bool { a.rawValue < b.rawValue }

    /// "0x002a"
    public var description: String {
        "0x" + hexString(rawValue, digits: 4)
    }

    @inlinable
    package func append(to buffer: inout [UInt8]) {
        buffer.append(UInt8(truncatingIfNeeded: rawValue))
        buffer.append(UInt8(truncatingIfNeeded: rawValue >> 8))
    }
}

/// A closed range of attribute handles, as carried by the ATT "Starting Handle" and
/// "Ending Handle" parameters.
///
/// Requests may carry invalid ranges on the wire; a server answers them with Invalid
/// Handle (Vol 3 Part F §3.4.3.1). ``invalidHandle`` says whether, and which handle to
/// report.
public struct AttributeHandleRange: Hashable, Sendable, CustomStringConvertible {
    public var start: AttributeHandle
    public var end: AttributeHandle

    @inlinable
    public init(start: AttributeHandle, end: AttributeHandle) {
        self.start = start
        self.end = end
    }

    /// 0x0001...0xFFFF
    public static let all = AttributeHandleRange(start: .min, end: .max)

    /// A valid range has a non-zero start not above its end.
    @inlinable public var isValid: Bool { start.rawValue != 0 && start <= end }

    /// The handle to name in an Invalid Handle error, or nil when the range is valid.
    @inlinable public var invalidHandle: AttributeHandle? { isValid ? nil : start }

    @inlinable
    public func contains(_ handle: AttributeHandle) -> Bool { start <= handle && handle <= end }

    /// "0x0001..0xffff"
    public var description: String { "\(start)..\(end)" }
}
