import Attune
import Foundation
import HCI
import Synchronization
import class Transport.BTSnoopRecorder
import enum Transport.H4Endpoint
import class Transport.UserlandHost

/// `attune scan --controller ENDPOINT`: a scan driven straight through our userland host
/// on an H4 controller or the user channel, HCI packet by packet, with the H4 traffic
/// recorded by `--snoop`. (`--transport` goes through the managers instead.) Reports go
/// through the same ``ScanTable`` as `CentralManager.scan`, and print the same way.
enum UserlandScan {
    static func run(_ arguments: Arguments, listing: ScanCommand.Listing) async throws -> Int32 {
        guard let text = arguments.option("controller") else { throw CLIError.usage("--controller is required") }
        for name in ["timeout", "transport"] where arguments.option(name) != nil {
            throw CLIError.usage("--\(name) does not go with --controller (use --seconds)")
        }
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
        let printed = Mutex(0)
        let filter = ScanFilter(ScanTable(limit: listing.deviceLimit, allowDuplicates: listing.allowDuplicates)) { ad in
            guard listing.services.map({ ad.advertises(anyOf: $0) }) ?? true else { return }
            printed.withLock { $0 += 1 }
            Output.live(listing.render(ad))
        }
        let events = host.events
        let reader = Task {
            for await event in events {
                guard case .advertisingReport(let report) = event else { continue }
                ScanCommand.reportLoss(report.lostBefore)
                filter.receive(Advertisement(report))
            }
        }
        do {
            _ = try await host.start()
            _ = try await host.perform(.startScanning(ScanConfiguration()))
            // A signal cancels the command: the scan then stops early, but it stops.
            try? await Task.sleep(for: duration)
            _ = try await host.perform(.stopScanning)
        } catch {
            throw CLIError.failure("\(endpoint): \(error)")
        }
        host.close()
        await reader.value
        filter.close()
        let count = printed.withLock { $0 }
        Output.status("\(count) advertisement\(count == 1 ? "" : "s")")
        return 0
    }
}
