import Testing
@testable import HCI

/// HCI status codes print with the spec's names (Vol 1 Part F §1.3) and, where the
/// place they came from says the cause, the fix.
@Suite("HCI status names and hints")
struct HCIStatusNameTests {
    @Test func everyAssignedCodeHasItsSpecName() {
        let reserved: Set<UInt8> = [0x2B, 0x31, 0x33]
        for code in UInt8(0x00)...0x45 {
            let name = HCIStatus(code).name
            if reserved.contains(code) {
                #expect(name == "Reserved for Future Use")
            } else {
                #expect(name != "Reserved for Future Use" && name != "Unassigned Error Code", "0x\(String(code, radix: 16))")
            }
        }
        #expect(HCIStatus(0x46).name == "Unassigned Error Code")
        #expect(HCIStatus(0xFF).name == "Unassigned Error Code")
        #expect(HCIStatus.noControllerStatus.name == "Unassigned Error Code", "the host's own failure never passes for a real code")
        let known: [(UInt8, String)] = [
            (0x07, "Memory Capacity Exceeded"), (0x08, "Connection Timeout"), (0x09, "Connection Limit Exceeded"),
            (0x0C, "Command Disallowed"), (0x12, "Invalid HCI Command Parameters"),
            (0x13, "Remote User Terminated Connection"), (0x16, "Connection Terminated By Local Host"),
            (0x3B, "Unacceptable Connection Parameters"),
            (0x3E, "Connection Failed to be Established"), (0x22, "LL Response Timeout"), (0x45, "Packet Too Long"),
        ]
        for (code, name) in known { #expect(HCIStatus(code).name == name) }
        #expect(HCIStatus(0x0C).namedDescription == "Command Disallowed (HCI 0x0c)")
    }

    @Test func hintsDependOnWhereTheCodeCameFrom() {
        let disallowed = HCIStatus(0x0C)
        #expect(disallowed.hint(.command(LECreateConnection.opcode))?
            .hasPrefix("a connection attempt is already pending on this controller") == true)
        #expect(disallowed.hint(.connectionAttempt) == disallowed.hint(.command(LEExtendedCreateConnection.opcode)))
        #expect(disallowed.hint(.command(LESetScanEnable.opcode))?.contains("scanning") == true)
        #expect(HCIStatus(0x3E).hint(.connectionAttempt)
                == "the peripheral did not answer; it may be out of range or no longer advertising")
        #expect(HCIStatus(0x08).hint(.disconnection)?.contains("supervision timeout") == true)
        #expect(HCIStatus(0x13).hint(.disconnection) == "the peripheral closed the connection")
        #expect(HCIStatus(0x16).hint(.disconnection) == "this host closed the connection")
        #expect(HCIStatus(0x3B).hint(.connectionAttempt)?.contains("connection parameters") == true)
        #expect(HCIStatus(0x07).hint(.connectionAttempt)?.contains("out of memory") == true)
        #expect(HCIStatus(0x09).hint(.disconnection)?.contains("disconnect another device") == true)
        #expect(HCIStatus(0x12).hint(.command(LESetScanParameters.opcode))?.contains("parameters") == true)
        #expect(HCIStatus(0x1F).hint(.disconnection) == nil, "no hint where the cause is unknown")
    }

    @Test func hostErrorsNameTheStatusAndTheFix() {
        let failed = HostError.commandFailed(LECreateConnection.opcode, HCIStatus(0x0C))
        #expect(failed.description.contains("Command Disallowed (HCI 0x0c)"))
        #expect(failed.description.contains("a connection attempt is already pending"))
        #expect(HostError.connectionFailed(HCIStatus(0x3E)).description
                == "connection failed: Connection Failed to be Established (HCI 0x3e); "
                + "the peripheral did not answer; it may be out of range or no longer advertising")
        #expect(HostError.disconnected(handle: 0x40, reason: HCIStatus(0x08)).description
                == "connection 0x40 disconnected: Connection Timeout (HCI 0x08)")
    }

    @Test("LE Create Connection refused with Command Disallowed says an attempt is pending")
    func refusedConnectNamesTheCause() {
        var controller = FakeController()
        controller.initialize()
        controller.perform(.connect(peer: BluetoothAddress(rawValue: 1), peerAddressType: 1,
                                    parameters: ConnectionParameters(), timeout: .seconds(5)), id: 1)
        controller.receive(FakeController.commandStatus(0x200D, status: 0x0C))
        guard case .failure(let error)? = controller.completions[HostRequestID(1)] else {
            Issue.record("connect did not fail: \(controller.completions)")
            return
        }
        #expect(error.description.contains("Command Disallowed (HCI 0x0c)"), "\(error)")
        #expect(error.description.contains("a connection attempt is already pending on this controller"), "\(error)")
    }
}
