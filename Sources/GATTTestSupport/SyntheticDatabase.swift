import ATT
import GATT

/// Databases of a chosen shape for benchmarks and tests, built with the server's DSL.
public enum SyntheticDatabase {
    /// `services` primary services with 128-bit UUIDs, `characteristicsPerService`
    /// characteristics each (read/write/notify, so each has a CCCD), and a Generic
    /// Attribute service first.
    public static func make(services: Int, characteristicsPerService: Int) -> AttributeDatabase {
        var definitions: [ServiceDefinition] = [.genericAttribute()]
        for s in 0..<services {
            var characteristics: [CharacteristicDefinition] = []
            for c in 0..<characteristicsPerService {
                characteristics.append(CharacteristicDefinition(
                    BluetoothUUID(high: 0xA77E_0000_0000_1000 | UInt64(s) << 16 | UInt64(c), low: 0x8000_0080_5F9B_34FB),
                    properties: [.read, .write, .notify], value: [UInt8(truncatingIfNeeded: s), UInt8(truncatingIfNeeded: c)],
                    descriptors: [.userDescription("service \(s) characteristic \(c)")]))
            }
            definitions.append(ServiceDefinition(BluetoothUUID(high: 0xA77E_0000_0000_1000 | UInt64(s) << 32, low: 0x8000_0080_5F9B_34FB),
                                                 characteristics: characteristics))
        }
        // The definitions are well formed by construction.
        return try! AttributeDatabase(services: definitions)
    }
}
