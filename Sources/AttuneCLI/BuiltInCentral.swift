import Attune

/// The central `attune serve --transport memory` runs against itself: both serve forms
/// (a database and a capture) find their peripheral by its advertised name and connect.
enum BuiltInCentral {
    /// Scans until `name` advertises, then connects; nil when the scan ends first.
    static func connect(on radio: MemoryRadio, name: String) async throws -> (CentralManager, Peripheral)? {
        let central = CentralManager(transport: .memory(radio))
        var found: Advertisement?
        for await ad in try central.scan() where ad.localName == name {
            found = ad
            break
        }
        guard let ad = found else { return nil }
        let peripheral = central.peripheral(for: ad)
        try await central.connect(peripheral, timeout: .seconds(10))
        return (central, peripheral)
    }

    /// How long a serve command lives: with a memory radio, its built-in central's run
    /// first (a failure makes the exit status 1); then `seconds`, or, with nothing to
    /// run on its own, until a signal cancels the command (main.swift's SignalTrap).
    static func serveLifetime(radio: MemoryRadio?, seconds: Int,
                              exercise: (MemoryRadio) async throws -> Void) async -> Int32 {
        var status: Int32 = 0
        if let radio {
            do {
                try await exercise(radio)
            } catch {
                Output.error("the built-in central failed: \(error)")
                status = 1
            }
            // Let the disconnect reach the printer before stopping.
            try? await Task.sleep(for: .milliseconds(50))
        }
        if seconds > 0 {
            try? await Task.sleep(for: .seconds(seconds))
        } else if radio == nil {
            while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
        }
        return status
    }
}
