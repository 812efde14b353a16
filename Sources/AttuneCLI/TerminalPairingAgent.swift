import Attune
import Foundation

/// Answers a ``PairingAgent``'s requests on the terminal: passkeys to show go to stderr,
/// passkeys and confirmations are asked on stderr and read from stdin. Without a terminal
/// on stdin every question is refused with an error that names `--passkey`, so a script
/// fails at once instead of waiting out the 30 s SMP timer.
enum TerminalPairingAgent {
    static func start(_ agent: PairingAgent) {
        Task.detached {
            for await request in agent { await answer(request) }
        }
    }

    static func answer(_ request: PairingRequest) async {
        switch request.kind {
        case .displayPasskey(let value):
            Output.status("pairing with \(request.peerAddress): enter passkey \(PairingRequest.digits(value)) on the peer")
            return
        case .enterPasskey, .confirmNumber, .acceptJustWorks:
            break
        }
        guard isatty(STDIN_FILENO) == 1 else {
            Output.error("pairing with \(request.peerAddress) needs a passkey or confirmation, and stdin is not a terminal "
                + "to ask on: give --passkey N (or --no-pair to never pair)")
            request.refuse()
            return
        }
        switch request.kind {
        case .enterPasskey:
            guard let line = await ask("pairing with \(request.peerAddress): enter the 6-digit passkey the peer shows: "),
                  let value = try? PairingOptions.parsePasskey(line.trimmingCharacters(in: .whitespaces)) else {
                request.refuse()
                return
            }
            request.respond(passkey: value)
        case .confirmNumber(let value):
            let line = await ask("pairing with \(request.peerAddress): does the peer show \(PairingRequest.digits(value))? [y/N] ")
            let yes = line.map { ["y", "yes"].contains($0.trimmingCharacters(in: .whitespaces).lowercased()) } ?? false
            request.confirm(yes)
        case .acceptJustWorks:
            let line = await ask("pair with \(request.peerAddress) (Just Works, no MITM protection)? [y/N] ")
            request.confirm(line.map { ["y", "yes"].contains($0.trimmingCharacters(in: .whitespaces).lowercased()) } ?? false)
        case .displayPasskey:
            break
        }
    }

    /// Prompts on stderr and reads one line from stdin on a thread of its own, so the
    /// blocking read holds no thread of the cooperative pool.
    static func ask(_ prompt: String) async -> String? {
        FileHandle.standardError.write(Data(prompt.utf8))
        return await withCheckedContinuation { (done: CheckedContinuation<String?, Never>) in
            Thread.detachNewThread { done.resume(returning: readLine(strippingNewline: true)) }
        }
    }
}
