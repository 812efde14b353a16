import Capture

/// Reads every record of an in-memory capture.
public func readAll(_ bytes: [UInt8]) throws -> (CaptureFormat, [CaptureRecord]) {
    var reader = try CaptureReader(bytes: bytes)
    var records: [CaptureRecord] = []
    while let r = try reader.next() { records.append(r) }
    return (reader.format, records)
}

/// Writes records to memory in a format.
public func writeAll(_ records: [CaptureRecord], as format: CaptureFormat) throws -> [UInt8] {
    var writer = try CaptureWriter(output: MemoryOutput(), format: format)
    for r in records { try writer.write(r) }
    return try writer.finish().bytes
}
