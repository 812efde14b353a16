// fuzz-modules: BluetoothCore CYAML GatewayConfig
// libFuzzer target: arbitrary bytes as a gateway config file. Nothing may trap or hang:
// the loader is bounded (size, depth, nodes, no aliases) and every value is checked with its
// path. A config that loads must also give its plan, compare with itself as unchanged, and
// resolve secrets against a reader that fails, without trapping; an error's text stays short.
import GatewayConfig

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGatewayConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
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
