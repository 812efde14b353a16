extension Peripheral {
    /// Reads a value with the Read Long Characteristic Value procedure (Vol 3 Part G
    /// §4.8.3): a Read Request, then Read Blob Requests while each part fills the
    /// response; from `offset` on, Read Blob only. ``readValue(for:)`` already continues
    /// a full Read Response this way; this asks for the procedure explicitly.
    public func readLongValue(for characteristic: Characteristic, offset: Int = 0) async throws(AttuneError) -> [UInt8] {
        guard characteristic.properties.contains(.read) else {
            throw .operationNotSupported("characteristic \(characteristic.uuid) is not readable")
        }
        guard let start = UInt16(exactly: offset), offset <= 512 else { throw .invalidValueLength(offset, maximum: 512) }
        guard case .value(let value) = try await request(.readLongValue(characteristic.valueHandle, offset: start))
        else { return [] }
        return value
    }

    /// Writes with the Write Long Characteristic Values procedure (§4.9.4): Prepare
    /// Write Requests of ATT_MTU − 5 bytes, then Execute Write, even when one Write
    /// Request would do. On an error the queue is cancelled and the error reported.
    public func writeLongValue(_ value: [UInt8], for characteristic: Characteristic) async throws(AttuneError) {
        guard characteristic.properties.contains(.write) else {
            throw .operationNotSupported("characteristic \(characteristic.uuid) does not take writes with response")
        }
        guard value.count <= 512 else { throw .invalidValueLength(value.count, maximum: 512) }
        _ = try await request(.writeLongValue(characteristic.valueHandle, value))
    }

    /// Writes with the Reliable Writes procedure (§4.9.5): every Prepare Write Response
    /// must echo its request exactly, or the queue is cancelled (Execute Write with
    /// flags 0) and ``AttuneError/protocolError(_:)`` says which part differed.
    public func reliableWrite(_ value: [UInt8], for characteristic: Characteristic) async throws(AttuneError) {
        guard characteristic.properties.contains(.write) else {
            throw .operationNotSupported("characteristic \(characteristic.uuid) does not take writes with response")
        }
        guard value.count <= 512 else { throw .invalidValueLength(value.count, maximum: 512) }
        // Each Prepare Write Request carries opcode, handle and offset: 5 bytes of ATT_MTU.
        let part = max(1, mtu - 5)
        var writes: [PreparedWrite] = []
        var offset = 0
        repeat {
            let end = min(value.count, offset + part)
            writes.append(PreparedWrite(handle: characteristic.valueHandle, offset: UInt16(offset),
                                        value: Array(value[offset..<end])))
            offset = end
        } while offset < value.count
        _ = try await request(.reliableWrite(writes))
    }
}
