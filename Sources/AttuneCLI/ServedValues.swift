import Attune

/// The characteristic values `attune serve` answers with: the file's values at first,
/// then whatever centrals write.
actor ServedValues {
    private var values: [AttributeHandle: [UInt8]] = [:]
    private var names: [AttributeHandle: BluetoothUUID] = [:]

    /// `initial` holds the definitions' values in the order their characteristics were
    /// published.
    init(published: [PublishedService], initial: [[UInt8]]) {
        for (c, value) in zip(published.flatMap(\.characteristics), initial) {
            values[c.valueHandle] = value
            names[c.valueHandle] = c.uuid
        }
    }

    func uuid(of handle: AttributeHandle) -> BluetoothUUID? { names[handle] }

    /// The value from `offset` on (Read Blob), or Invalid Offset (0x07).
    func read(_ handle: AttributeHandle, offset: Int) -> Result<[UInt8], ATTErrorCode> {
        let value = values[handle] ?? []
        guard offset <= value.count else { return .failure(ATTErrorCode(0x07)) }
        return .success(Array(value[offset...]))
    }

    /// The next value to notify: the current one with its last byte counted up (one
    /// zero byte when empty), kept as the value reads see.
    func bump(_ handle: AttributeHandle) -> [UInt8] {
        var value = values[handle] ?? []
        if value.isEmpty { value = [0] } else { value[value.count - 1] &+= 1 }
        values[handle] = value
        return value
    }

    /// Applies writes that stand or fall together (an Execute Write's parts): Invalid
    /// Offset (0x07) past the end, Invalid Attribute Value Length (0x0D) past 512 bytes.
    func write(_ writes: [ApplicationWrite]) -> ATTErrorCode? {
        var updated = values
        for w in writes {
            let current = updated[w.handle] ?? []
            guard w.offset <= current.count else { return ATTErrorCode(0x07) }
            let value = Array(current.prefix(w.offset)) + w.value
            guard value.count <= 512 else { return ATTErrorCode(0x0D) }
            updated[w.handle] = value
        }
        values = updated
        return nil
    }
}
