import Testing
@testable import Transport

/// The `BT_SECURITY` level the kernel transport asks for: from the pairing choices, and
/// one level up when the link already has it and the server still refuses.
@Suite("Kernel transport: security levels")
struct KernelSecurityLevelTests {
    @Test("PairingConfiguration → BT_SECURITY: medium by default, high with MITM, FIPS for Secure Connections only")
    func configurationLevels() {
        #expect(PairingConfiguration().kernelSecurityLevel == .medium)
        #expect(PairingConfiguration(requiresMITM: true).kernelSecurityLevel == .high)
        #expect(PairingConfiguration(secureConnectionsOnly: true).kernelSecurityLevel == .fips)
        #expect(PairingConfiguration(requiresMITM: true, secureConnectionsOnly: true).kernelSecurityLevel == .fips)
    }

    @Test("a raise asks for the configured level, then one up on a link that already has it, and nothing past FIPS")
    func raiseTargets() {
        #expect(KernelATTLink.target(current: .low, required: .medium) == .medium)
        #expect(KernelATTLink.target(current: .low, required: .high) == .high)
        // Encrypted without MITM, and the server answered Insufficient Authentication.
        #expect(KernelATTLink.target(current: .medium, required: .medium) == .high)
        #expect(KernelATTLink.target(current: .high, required: .medium) == .fips)
        #expect(KernelATTLink.target(current: .fips, required: .medium) == nil)
    }
}
