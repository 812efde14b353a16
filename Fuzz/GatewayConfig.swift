// fuzz-modules: BluetoothCore CCrypto BluetoothCrypto SensorDecoding CYAML GatewayConfig
// libFuzzer target: arbitrary bytes as a gateway config file. Nothing may trap or hang:
// the loader is bounded (size, depth, nodes, no aliases) and every value is checked with its
// path. A config that loads must also give its plan, compare with itself as unchanged, and
// resolve secrets against a reader that fails, without trapping; an error's text stays short.
// A leading UTF-8 BOM loads as the same config or fails with the same error.
import GatewayConfig

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGatewayConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // A leading UTF-8 byte order mark changes nothing: the same config, or the same
    // error at the same line and column. Encoding errors are the exception: their byte
    // offset counts the mark, and a UTF-16 mark is only recognised first in the file.
    let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
    if !bytes.starts(with: bom) {
        let plain = load(bytes), marked = load(bom + bytes)
        var encoding = false
        if case .failure(let e) = plain { encoding = e.message.hasPrefix("not UTF-8") || e.message.contains("byte order mark") }
        precondition(encoding || plain == marked, "a leading BOM changed the result: \(plain) → \(marked)")
    }
    do {
        let config = try GatewayConfiguration(yaml: bytes)
        _ = config.plan
        precondition(config.changes(from: config).isEmpty, "a config differs from itself")
        _ = try? config.resolveSecrets { _, _ throws(FileReadError) in throw FileReadError(reason: "fuzz") }
        _ = try? config.resolveSecrets { _, _ throws(FileReadError) in bytes }
    } catch {
        precondition("\(error)".utf8.count < 4096, "an unbounded config error")
    }
    return 0
}

func load(_ bytes: [UInt8]) -> Result<GatewayConfiguration, GatewayConfigError> {
    do { return .success(try GatewayConfiguration(yaml: bytes)) } catch { return .failure(error) }
}
