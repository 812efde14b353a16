extension PairingConfiguration {
    /// The `BT_SECURITY` level the kernel's SMP must reach for these choices: FIPS for
    /// Secure Connections only (the kernel's one SC-only level, which is also
    /// authenticated), high for MITM protection, otherwise medium (encrypted).
    var kernelSecurityLevel: BluetoothSecurityLevel {
        if secureConnectionsOnly { return .fips }
        if requiresMITM { return .high }
        return .medium
    }
}
