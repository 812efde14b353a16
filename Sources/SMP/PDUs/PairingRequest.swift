/// Pairing Request (Vol 3 Part H §3.5.1), sent by the initiator.
public struct PairingRequest: Hashable, Sendable, CustomStringConvertible {
    public static let code = SMPCode.pairingRequest
    public var features: PairingFeatures

    public init(_ features: PairingFeatures) { self.features = features }

    init(parameters: ArraySlice<UInt8>) { features = PairingFeatures(parameters: parameters) }

    func encode(into out: inout [UInt8]) {
        out.append(Self.code.rawValue)
        features.encode(into: &out)
    }

    public var description: String { "PairingRequest(\(features))" }
}
