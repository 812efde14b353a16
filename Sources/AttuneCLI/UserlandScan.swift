import Foundation
import HCI
import class Transport.BTSnoopRecorder
import enum Transport.H4Endpoint
import class Transport.UserlandHost

/// `attune scan --controller ENDPOINT`: a scan driven straight through our userland host
/// on an H4 controller or the user channel, HCI packet by packet, with the H4 traffic
/// recorded by `--snoop`. (`--transport` goes through the managers instead.)
enum UserlandScan {
    static func run(_ arguments: Arguments) async throws -> Int32 {
        guard let text = arguments.option("controller") else { throw CLIError.usage("--controller is required") }
        let endpoint: H4Endpoint
        do { endpoint = try H4Endpoint(parsing: text) } catch { throw CLIError.usage(error.description) }
        let duration = try arguments.seconds("seconds", default: 5, in: 0.001...86_400)
        let addressText = arguments.option("random-address") ?? "C0:A7:7E:00:00:01"
        guard let address = BluetoothAddress(addressText) else {
            throw CLIError.usage("--random-address: '\(addressText)' is not AA:BB:CC:DD:EE:FF")
        }
        var recorder: BTSnoopRecorder?
        if let path = arguments.option("snoop") {
            do { recorder = try BTSnoopRecorder(path: path) } catch { throw CLIError.failure("\(path): \(error)") }
        }
        let host: UserlandHost
        do {
            host = try UserlandHost(endpoint: endpoint, configuration: HostConfiguration(
                randomAddress: address, commandSet: arguments.flag("legacy") ? .legacy : .automatic), recorder: recorder)
        } catch {
            throw CLIError.failure("\(endpoint): \(error)")
        }
        defer { host.close() }
        let json = arguments.flag("json")
        let listing = Task {
            var seen = Set<String>()
            var names: [String: String] = [:]
            for await event in host.events {
                guard case .advertisingReport(let report) = event else { continue }
                let key = "\(report.address)/\(report.addressType)"
                let name = AdvertisingData(decoding: report.data[...]).localName
                if let name { names[key] = name }
                // Print once, preferably once the name is known (it often comes in the scan response).
                guard !seen.contains(key), name != nil || report.isScanResponse else { continue }
                seen.insert(key)
                let type = report.addressType == 0 ? "public" : report.addressType == 1 ? "random" : "0x\(String(report.addressType, radix: 16))"
                if json {
                    let quoted = names[key].map { "\"\($0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\""))\"" } ?? "null"
                    Output.data("{\"address\": \"\(report.address)\", \"address_type\": \"\(type)\", \"rssi\": \(report.rssi), \"name\": \(quoted)}")
                } else {
                    Output.data("\(report.address)  \(type)  \(report.rssi)  \(names[key] ?? "")")
                }
            }
        }
        do {
            _ = try await host.start()
            _ = try await host.perform(.startScanning(ScanConfiguration()))
            try await Task.sleep(for: duration)
            _ = try await host.perform(.stopScanning)
        } catch let error as HostError {
            throw CLIError.failure("\(endpoint): \(error)")
        }
        host.close()
        await listing.value
        return 0
    }
}
