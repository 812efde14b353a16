import ATT

/// What one kind of access (read or write) to an attribute requires.
///
/// There is no "unchecked" value: an access is either ``denied`` or allowed with a
/// stated set of requirements (possibly none).
public struct AccessRule: Hashable, Sendable, CustomStringConvertible {
    /// Whether the access is permitted at all.
    public var permitted: Bool
    /// The link must be encrypted.
    public var encryption: Bool
    /// The link key must be authenticated (MITM protected).
    public var authentication: Bool
    /// The link must use LE Secure Connections.
    public var secureConnections: Bool
    /// The application must authorize the access (see `GATTServer.Configuration.authorize`).
    public var authorization: Bool
    /// Minimum encryption key size in octets; 0 means no minimum beyond encryption itself.
    public var minimumKeySize: UInt8

    public init(permitted: Bool, encryption: Bool = false, authentication: Bool = false,
                secureConnections: Bool = false, authorization: Bool = false, minimumKeySize: UInt8 = 0) {
        self.permitted = permitted
        self.encryption = encryption || authentication || secureConnections || minimumKeySize > 0
        self.authentication = authentication || secureConnections
        self.secureConnections = secureConnections
        self.authorization = authorization
        self.minimumKeySize = minimumKeySize
    }

    /// The access is not permitted.
    public static let denied = AccessRule(permitted: false)
    /// Permitted on any link.
    public static let open = AccessRule(permitted: true)
    /// Permitted on an encrypted link.
    public static let encrypted = AccessRule(permitted: true, encryption: true)
    /// Permitted on a link encrypted with an authenticated key.
    public static let authenticated = AccessRule(permitted: true, authentication: true)
    /// Permitted on an authenticated LE Secure Connections link.
    public static let secure = AccessRule(permitted: true, secureConnections: true)
    /// Permitted on any link once the application authorizes it.
    public static let authorized = AccessRule(permitted: true, authorization: true)

    /// The ATT error for this access on `link`, or nil when it is allowed. `authorize` is
    /// only consulted when the rule requires authorization.
    ///
    /// Order: not permitted, authentication (0x05), encryption (0x0F), key size (0x0C),
    /// authorization (0x08) — the security checks run before the application is asked.
    @inlinable
    public func check(_ link: LinkSecurity, notPermitted: ATTErrorCode, authorize: () -> Bool) -> ATTErrorCode? {
        guard permitted else { return notPermitted }
        if authentication && !(link.encrypted && link.authenticated) { return .insufficientAuthentication }
        if secureConnections && !link.secureConnections { return .insufficientAuthentication }
        if encryption && !link.encrypted { return .insufficientEncryption }
        if minimumKeySize > 0 && link.keySize < minimumKeySize { return .encryptionKeySizeTooShort }
        if authorization && !authorize() { return .insufficientAuthorization }
        return nil
    }

    public var description: String {
        guard permitted else { return "denied" }
        var parts: [String] = []
        if secureConnections { parts.append("secure") } else if authentication { parts.append("authenticated") }
        else if encryption { parts.append("encrypted") }
        if minimumKeySize > 0 { parts.append("key≥\(minimumKeySize)") }
        if authorization { parts.append("authorized") }
        return parts.isEmpty ? "open" : parts.joined(separator: "+")
    }
}

/// The explicit permissions of one attribute (Vol 3 Part F §3.2.5).
public struct AttributePermissions: Hashable, Sendable, CustomStringConvertible {
    public var read: AccessRule
    public var write: AccessRule

    public init(read: AccessRule, write: AccessRule) {
        self.read = read
        self.write = write
    }

    /// Readable on any link, never writable: declarations and most descriptors.
    public static let readOnly = AttributePermissions(read: .open, write: .denied)
    /// Writable on any link, never readable.
    public static let writeOnly = AttributePermissions(read: .denied, write: .open)
    /// Readable and writable on any link.
    public static let readWrite = AttributePermissions(read: .open, write: .open)
    /// Neither readable nor writable.
    public static let none = AttributePermissions(read: .denied, write: .denied)

    /// Readable with `read`, not writable.
    public static func readable(_ read: AccessRule) -> AttributePermissions { .init(read: read, write: .denied) }
    /// Writable with `write`, not readable.
    public static func writable(_ write: AccessRule) -> AttributePermissions { .init(read: .denied, write: write) }

    /// Translates BlueZ gatt-db permission bits (as in the conformance databases) into an
    /// explicit set. BlueZ leaves an attribute whose bits are 0 unchecked; here that becomes
    /// ``readWrite``. NONE (0x80) denies both. The `_SECURE` bits map to Secure Connections.
    public init(bluezBits bits: UInt16) {
        if bits == 0 { self = .readWrite; return }
        if bits & 0x0080 != 0 { self = .none; return }
        read = AccessRule(permitted: bits & 0x0001 != 0, encryption: bits & 0x0004 != 0,
                          authentication: bits & 0x0010 != 0, secureConnections: bits & 0x0100 != 0,
                          authorization: bits & 0x0040 != 0)
        write = AccessRule(permitted: bits & 0x0002 != 0, encryption: bits & 0x0008 != 0,
                           authentication: bits & 0x0020 != 0, secureConnections: bits & 0x0200 != 0,
                           authorization: bits & 0x0040 != 0)
    }

    public var description: String { "read: \(read), write: \(write)" }
}
