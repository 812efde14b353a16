/// Security Request (Vol 3 Part H §3.6.7): a peripheral asks the central to pair or encrypt.
public struct SecurityRequest: Hashable, Sendable, CustomStringConvertible {
    public static let code = SMPCode.securityRequest
    public let authenticationRequirements: AuthenticationRequirements

    public init(authenticationRequirements: AuthenticationRequirements) {
        self.authenticationRequirements = authenticationRequirements
    }

    init(parameters: ArraySlice<UInt8>) {
        authenticationRequirements = AuthenticationRequirements(rawValue: parameters[parameters.startIndex])
    }

    func encode(into out: inout [UInt8]) { out.append(contentsOf: [Self.code.rawValue, authenticationRequirements.rawValue]) }

    public var description: String { "SecurityRequest(authReq 0x\(String(authenticationRequirements.rawValue, radix: 16)))" }
}
