import ATT

extension ServiceDefinition {
    /// The Generic Attribute service (Vol 3 Part G §7) with everything robust caching
    /// needs: Service Changed (indicate), Client Supported Features (per client), Database
    /// Hash (computed) and Server Supported Features.
    ///
    /// - Parameter serverSupportedFeatures: bit 0 is EATT support.
    public static func genericAttribute(serverSupportedFeatures: UInt8 = 0, handle: AttributeHandle? = nil) -> ServiceDefinition {
        var features = CharacteristicDefinition(GATTAttributeType.clientSupportedFeatures, properties: [.read, .write],
                                                value: [0], maximumLength: 1)
        features.kind = .clientSupportedFeatures
        var hash = CharacteristicDefinition(GATTAttributeType.databaseHash, properties: [.read], maximumLength: 16)
        hash.kind = .databaseHash
        return ServiceDefinition(GATTAttributeType.genericAttributeService, handle: handle, characteristics: [
            CharacteristicDefinition(GATTAttributeType.serviceChanged, properties: [.indicate],
                                     permissions: AttributePermissions.none, value: [0, 0, 0, 0], maximumLength: 4),
            features,
            hash,
            CharacteristicDefinition(GATTAttributeType.serverSupportedFeatures, properties: [.read],
                                     value: [serverSupportedFeatures]),
        ])
    }
}
