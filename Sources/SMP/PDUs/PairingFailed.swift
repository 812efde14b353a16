/// Pairing Failed (Vol 3 Part H §3.5.5).
public struct PairingFailed: Hashable, Sendable, CustomStringConvertible {
    public static let code = SMPCode.pairingFailed
    public let reason: PairingFailedReason

    public init(reason: PairingFailedReason) { self.reason = reason }

    init(parameters: ArraySlice<UInt8>) { reason = PairingFailedReason(rawValue: parameters[parameters.startIndex]) }

    func encode(into out: inout [UInt8]) { out.append(contentsOf: [Self.code.rawValue, reason.rawValue]) }

    public var description: String { "PairingFailed(\(reason))" }
}
