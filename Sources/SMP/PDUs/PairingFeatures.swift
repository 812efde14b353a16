/// The six parameters shared by Pairing Request and Pairing Response (Vol 3 Part H §3.5.1–3.5.2).
public struct PairingFeatures: Hashable, Sendable, CustomStringConvertible {
    public var ioCapability: IOCapability
    /// OOB data flag: 0x01 when OOB authentication data from the remote device is present.
    public var oobDataFlag: UInt8
    public var authenticationRequirements: AuthenticationRequirements
    /// 7–16 octets; other values are refused by the manager with Invalid Parameters.
    public var maximumEncryptionKeySize: UInt8
    public var initiatorKeyDistribution: KeyDistribution
    public var responderKeyDistribution: KeyDistribution

    public init(ioCapability: IOCapability, oobDataFlag: UInt8 = 0, authenticationRequirements: AuthenticationRequirements,
                maximumEncryptionKeySize: UInt8 = 16, initiatorKeyDistribution: KeyDistribution,
                responderKeyDistribution: KeyDistribution) {
        self.ioCapability = ioCapability
        self.oobDataFlag = oobDataFlag
        self.authenticationRequirements = authenticationRequirements
        self.maximumEncryptionKeySize = maximumEncryptionKeySize
        self.initiatorKeyDistribution = initiatorKeyDistribution
        self.responderKeyDistribution = responderKeyDistribution
    }

    init(parameters p: ArraySlice<UInt8>) {
        let s = p.startIndex
        ioCapability = IOCapability(rawValue: p[s])
        oobDataFlag = p[s + 1]
        authenticationRequirements = AuthenticationRequirements(rawValue: p[s + 2])
        maximumEncryptionKeySize = p[s + 3]
        initiatorKeyDistribution = KeyDistribution(rawValue: p[s + 4])
        responderKeyDistribution = KeyDistribution(rawValue: p[s + 5])
    }

    func encode(into out: inout [UInt8]) {
        out.append(contentsOf: [ioCapability.rawValue, oobDataFlag, authenticationRequirements.rawValue,
                                maximumEncryptionKeySize, initiatorKeyDistribution.rawValue, responderKeyDistribution.rawValue])
    }

    /// IOcapA/IOcapB of f6, least significant octet first: IO capability, OOB flag, AuthReq.
    var f6IOCap: [UInt8] { [ioCapability.rawValue, oobDataFlag, authenticationRequirements.rawValue] }

    public var description: String {
        "io \(ioCapability), oob \(oobDataFlag), authReq 0x\(String(authenticationRequirements.rawValue, radix: 16)), "
            + "max key \(maximumEncryptionKeySize), initiator keys 0x\(String(initiatorKeyDistribution.rawValue, radix: 16)), "
            + "responder keys 0x\(String(responderKeyDistribution.rawValue, radix: 16))"
    }
}
