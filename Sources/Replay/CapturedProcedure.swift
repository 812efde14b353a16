import ATT
import Capture

/// A GATT procedure (Vol 3 Part G §4) the captured client ran, inferred from its
/// requests: what replay asks our client to do, so that the PDUs it sends can be compared
/// with the captured ones.
public struct CapturedProcedure: Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        case exchangeMTU(clientRxMTU: UInt16)
        case discoverAllPrimaryServices(AttributeHandleRange)
        case discoverPrimaryServices(BluetoothUUID, AttributeHandleRange)
        case discoverSecondaryServices(AttributeHandleRange)
        case findIncludedServices(AttributeHandleRange)
        case discoverAllCharacteristics(AttributeHandleRange)
        case discoverDescriptors(AttributeHandleRange)
        case readValue(AttributeHandle)
        case readLongValue(AttributeHandle, offset: UInt16)
        case readUsingCharacteristicUUID(BluetoothUUID, AttributeHandleRange)
        case readMultiple([AttributeHandle])
        case readMultipleVariable([AttributeHandle])
        case writeValue(AttributeHandle, [UInt8])
        case writeWithoutResponse(AttributeHandle, [UInt8])
        case signedWriteWithoutResponse(AttributeHandle, [UInt8])
        /// Prepared writes of one handle at contiguous offsets, then Execute Write.
        case writeLongValue(AttributeHandle, offset: UInt16, [UInt8])
        /// Prepared writes of several handles or non-contiguous parts, then Execute Write.
        case reliableWrite([PreparedPart])
        /// Prepared writes cancelled with Execute Write (flags 0), or left unexecuted.
        case cancelledWrites([PreparedPart])
        /// A PDU the client sent outside any procedure this inference knows.
        case other(ATTOpcode)
    }

    public struct PreparedPart: Hashable, Sendable {
        public var handle: AttributeHandle
        public var offset: UInt16
        public var value: [UInt8]
    }

    public var kind: Kind
    /// Indices, in the conversation, of the client PDUs the procedure consists of.
    public var requests: [Int]

    public var description: String {
        switch kind {
        case let .exchangeMTU(mtu): return "Exchange MTU (client rx mtu \(mtu))"
        case let .discoverAllPrimaryServices(r): return "Discover All Primary Services \(r)"
        case let .discoverPrimaryServices(u, r): return "Discover Primary Service by UUID \(u) \(r)"
        case let .discoverSecondaryServices(r): return "Discover Secondary Services \(r)"
        case let .findIncludedServices(r): return "Find Included Services \(r)"
        case let .discoverAllCharacteristics(r): return "Discover All Characteristics \(r)"
        case let .discoverDescriptors(r): return "Discover All Characteristic Descriptors \(r)"
        case let .readValue(h): return "Read \(h)"
        case let .readLongValue(h, o): return "Read Long \(h) from offset \(o)"
        case let .readUsingCharacteristicUUID(u, r): return "Read Using Characteristic UUID \(u) \(r)"
        case let .readMultiple(hs): return "Read Multiple \(hs.map(\.description).joined(separator: ","))"
        case let .readMultipleVariable(hs): return "Read Multiple Variable \(hs.map(\.description).joined(separator: ","))"
        case let .writeValue(h, v): return "Write \(h) \(hexString(v))"
        case let .writeWithoutResponse(h, v): return "Write Without Response \(h) \(hexString(v))"
        case let .signedWriteWithoutResponse(h, v): return "Signed Write Without Response \(h) \(hexString(v))"
        case let .writeLongValue(h, o, v): return "Write Long \(h) from offset \(o), \(v.count) bytes"
        case let .reliableWrite(parts): return "Reliable Write of \(parts.count) parts"
        case let .cancelledWrites(parts): return "Prepared Writes cancelled (\(parts.count) parts)"
        case let .other(op): return op.name
        }
    }
}
