/// Pairing Response (Vol 3 Part H §3.5.2), sent by the responder.
public struct PairingResponse: Hashable, Sendable, CustomStringConvertible {
    public static let code = SMPCode.pairingResponse
    public var features: PairingFeatures

    public init(_ features: PairingFeatures) { self.features = features }

    init(parameters: ArraySlice<UInt8>) { features = PairingFeatures(parameters: parameters) }

    func encode(into out: inout [UInt8]) {
        out.append(Self.code.rawValue)
        features.encode(into: &out)
    }

    public var description: String { "PairingResponse(\(features))" }
}
