/// One rule of Core 5.4 Vol 3 Part F our server engine can be made to break, so a test
/// can show that the conformance tester catches exactly that rule (``ServerUnderTest``).
public enum ServerFault: Hashable, Sendable, CaseIterable {
    /// Error Responses for a handle (Invalid Handle, Read/Write Not Permitted, Invalid
    /// Offset) name the handle after the one that caused the error (§3.4.1.1).
    case errorNamesWrongHandle
    /// Read Blob reads from offset 0 whatever Value Offset the request carries (§3.4.4.5).
    case readBlobIgnoresOffset
    /// Read By Type for characteristic declarations searches on to 0xFFFF past the
    /// requested ending handle, so answers hold declarations outside the range (§3.4.4.1).
    case characteristicDiscoveryIgnoresRangeEnd
    /// Attribute Not Found names the handle after the request's starting handle, so every
    /// discovery (the tester's own included) ends on a broken Error Response (§3.4.1.1).
    case notFoundNamesWrongHandle
    /// A command with an opcode the server does not know is answered with Request Not
    /// Supported instead of being ignored (§3.3).
    case answersUnknownCommands
    /// A long write past 512 octets is taken: Invalid Attribute Value Length at Execute
    /// Write becomes an Execute Write Response (§3.2.9, §3.4.6.3).
    case acceptsOverlongValues
    /// A full prepare queue is refused with Insufficient Resources, not Prepare Queue
    /// Full (§3.4.6.1).
    case prepareQueueFullMisnamed
    /// A PDU too short for its opcode is refused with Invalid Handle, not Invalid PDU
    /// (§3.4.1.1).
    case invalidPDUMisnamed
}
