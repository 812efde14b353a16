import ATTPresentation
import Attune
import Foundation

/// `attune subscribe ADDR HANDLE|UUID`: notifications or indications as they arrive.
enum SubscribeCommand: CLICommand {
    static let name = "subscribe"
    static let summary = "subscribe to notifications or indications and print them"
    static let usage = """
        usage: attune subscribe ADDR HANDLE|UUID [--indicate] [--count N] [--random] [--discovery-timeout SECONDS]
                              [--passkey N|--no-pair] [--transport T] [--json]

        Connects, writes the characteristic's Client Characteristic Configuration and
        prints each value in hex as it arrives, until N values (or interrupted). As it ends
        (however it ends), one line on stderr counts what arrived:
          subscribe: 1000 values received, 0 lost (1012 ATT PDUs, 0 back-pressure pauses)

          --indicate     ask for indications (default: notifications when the characteristic
                         notifies, else indications)
          --count N      stop after N values (default: run until interrupted)
          --random       ADDR is a random address
        \(DiscoveryDeadline.help)
        \(PairingOptions.help)
        \(TransportOption.help)
          --json         one object per value: {"ts", "handle", "uuid", "value": "hex"}
        """
    static let flags: Set<String> = PairingOptions.centralFlags.union(["indicate", "random", "json", "snoop-keys"])
    static let options: Set<String> = PairingOptions.centralOptions.union(["count", "transport", "snoop", "discovery-timeout"])

    static func run(_ arguments: Arguments) async throws -> Int32 {
        guard arguments.positionals.count == 2 else { throw CLIError.usage("give ADDR and HANDLE|UUID") }
        let target = try AttributeTarget.parse(arguments.positionals[1])
        let count = try arguments.integer("count", default: 0, in: 0...Int(Int32.max))
        var deadline = try DiscoveryDeadline(arguments)
        let context = try await CentralContext.open(arguments, pairs: true)
        deadline.start()
        let peripheral = try await context.connect(arguments.positionals[0], random: arguments.flag("random"),
                                                   discoveryTimeout: deadline.timeout)
        var received = 0
        var lost = 0
        var subscribed = false
        // Said however the command ends (its count, an error, a signal): a flood shows as
        // numbers, and lost values are never silent.
        func summary() {
            guard subscribed else { return }
            let statistics = peripheral.statistics
            Output.status("subscribe: \(received) values received, \(lost) lost (\(statistics.pdusReceived) ATT PDUs, "
                          + "\(statistics.backPressurePauses) back-pressure pauses, "
                          + "\(statistics.pdusDropped) dropped by the transport)")
        }
        do {
            guard case .characteristic(var c) = try target.resolve(in: try await deadline.tree(of: peripheral, on: context.central)) else {
                throw CLIError.failure("\(target) is a descriptor: subscribe to its characteristic's value handle")
            }
            if arguments.flag("indicate") {
                guard c.properties.contains(.indicate) else {
                    throw CLIError.failure("characteristic \(c.uuid) does not indicate (properties: \(c.properties))")
                }
                // setNotifyValue prefers notifications; without the notify bit it indicates.
                c.properties.remove(.notify)
            }
            let values = await peripheral.notifications(for: c)
            try await peripheral.setNotifyValue(true, for: c)
            subscribed = true
            Output.status("subscribed to \(c.valueHandle) (\(GATTTreeOutput.label(c.uuid)))"
                          + (count > 0 ? ", waiting for \(count) values" : ", until interrupted"))
            for try await notification in values {
                let value = notification.value
                received += 1
                lost += notification.lostBefore
                if notification.lostBefore > 0 {
                    Output.status("\(notification.lostBefore) values lost before this one: the output did not keep up")
                }
                if arguments.flag("json") {
                    Output.live(JSONValue.object([("ts", .double(Date().timeIntervalSince1970)),
                                                  ("handle", .int(Int(c.valueHandle.rawValue))),
                                                  ("uuid", .string(c.uuid.description)),
                                                  ("value", .hex(value))]).description)
                } else {
                    Output.live(hexString(value))
                }
                if count > 0, received >= count { break }
            }
            if count > 0, received < count { throw CLIError.failure("the subscription ended after \(received) of \(count) values") }
        } catch let error as CLIError {
            summary()
            try? await context.close(peripheral)
            throw error
        } catch {
            summary()
            try? await context.close(peripheral)
            throw CLIError.failure("subscription to \(target) failed: \(error)")
        }
        summary()
        try await context.close(peripheral)
        return 0
    }
}
