import Dispatch
import Foundation
import Synchronization
/// SIGINT and SIGTERM for a running command. The first one starts a clean stop: the
/// command's links are disconnected (``Shutdown``), the command is cancelled, and the
/// process exits with 128 + the signal (130, 143). A second one exits at once.
final class SignalTrap: Sendable {
    /// Kept alive for the life of the trap; a Mutex, because dispatch sources are not Sendable.
    private let sources: Mutex<[any DispatchSourceSignal]>
    private let received: CaughtSignal

    /// The first signal, shared with the handlers (which exist before `self` does).
    final class CaughtSignal: Sendable {
        let number = Mutex<Int32?>(nil)
    }

    /// Catches SIGINT and SIGTERM from now on; `onFirst` runs once, off the signal
    /// context, for the first of them.
    init(onFirst: @escaping @Sendable (Int32) -> Void) {
        let queue = DispatchQueue(label: "attune.signals")
        let received = CaughtSignal()
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            // Ignored by the default handler so that the dispatch source sees it.
            Glibc.signal(number, SIG_IGN)
            sources.append(DispatchSource.makeSignalSource(signal: number, queue: queue))
        }
        for (source, number) in zip(sources, [SIGINT, SIGTERM]) {
            source.setEventHandler {
                let first = received.number.withLock { seen -> Bool in
                    guard seen == nil else { return false }
                    seen = number
                    return true
                }
                // A second signal: the user does not want to wait for the clean stop.
                guard first else { _exit(128 + number) }
                // The clean stop runs on the concurrency pool; should the pool be stuck,
                // this queue still ends the process: a signal is never ignored.
                queue.asyncAfter(deadline: .now() + .seconds(5)) { _exit(128 + number) }
                onFirst(number)
            }
            source.resume()
        }
        self.sources = Mutex(sources)
        self.received = received
    }

    /// The first signal caught, if any.
    var caught: Int32? { received.number.withLock { $0 } }
}
