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

    /// How long a serve command lives: `seconds` when given, however far its built-in
    /// central (with a memory radio) has got, which is then cancelled (a capture's push
    /// timed an hour on is not waited for); otherwise, with a memory radio, until the
    /// built-in central is done, and with nothing to run on its own until a signal
    /// cancels the command (main.swift's SignalTrap). A failure of the built-in central
    /// before the end makes the exit status 1.
    static func serveLifetime(radio: MemoryRadio?, seconds: Int,
                              exercise: @escaping @Sendable (MemoryRadio) async throws -> Void) async -> Int32 {
        let deadline = ContinuousClock.now + .seconds(seconds)
        guard let radio else {
            if seconds > 0 {
                try? await Task.sleep(until: deadline)
            } else {
                while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
            }
            return 0
        }
        let (endings, ending) = AsyncStream.makeStream(of: LifetimeEnding.self)
        let exercising = Task {
            do {
                try await exercise(radio)
                ending.yield(.exercised(failure: nil))
            } catch {
                ending.yield(.exercised(failure: "\(error)"))
            }
        }
        let timer = Task {
            guard seconds > 0 else { return }
            try? await Task.sleep(until: deadline)
            ending.yield(.deadline)
        }
        defer { timer.cancel() }
        var iterator = endings.makeAsyncIterator()
        // nil: the command was cancelled (a signal).
        switch await iterator.next() {
        case .exercised(let failure)?:
            var status: Int32 = 0
            if let failure {
                Output.error("the built-in central failed: \(failure)")
                status = 1
            }
            if seconds > 0 {
                await timer.value
            } else {
                // Let the disconnect reach the printer before stopping.
                try? await Task.sleep(for: .milliseconds(50))
            }
            return status
        case .deadline?, nil:
            exercising.cancel()
            return 0
        }
    }
}

/// What ended a serve command's lifetime first.
enum LifetimeEnding: Sendable {
    case exercised(failure: String?)
    case deadline
}
