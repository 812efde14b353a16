/// An HCI status or error code (Vol 1 Part F). 0x00 is success.
public struct HCIStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt8
    @inlinable public init(rawValue: UInt8) { self.rawValue = rawValue }
    @inlinable public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let success = HCIStatus(0x00)
    @inlinable public var isSuccess: Bool { rawValue == 0 }

    public var description: String {
        let s = String(rawValue, radix: 16)
        return "0x" + (s.count == 1 ? "0" + s : s)
    }
}
