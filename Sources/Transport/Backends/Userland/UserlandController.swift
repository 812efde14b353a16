import Capture
import Foundation
import HCI
import SMP
import Synchronization

/// Attune's own userland host (``UserlandHost``: HCI and L2CAP over an H4 stream or the
/// HCI user channel) as the managers' controller backend.
///
/// The host initialises in the background: the status is `unknown` until the controller
/// answered the initialisation sequence, then `poweredOn`; a stream that cannot be opened
/// or a controller that fails makes it `unsupported` with the reason.
final class UserlandController: ControllerBackend {
    /// Our identity on the air: the controller's public address when it has one, else the
    /// static random address kept with our IRK. Until the controller answered Read BD_ADDR
    /// it is the random one.
    var address: BluetoothAddress { state.withLock { $0.controller?.randomAddress ?? $0.controller?.publicAddress } ?? randomAddress }
    var addressType: BluetoothAddressType {
        state.withLock { $0.controller.map { $0.randomAddress == nil ? .public : .random } } ?? .random
    }
    private let randomAddress: BluetoothAddress

    private struct State: ~Copyable {
        var status = ManagerStatus(state: .unknown)
        var statusSinks: [AsyncStream<ManagerStatus>.Continuation] = []
        var scanners: [Int: @Sendable (Advertisement) -> Void] = [:]
        var nextToken = 1
        var acceptor: (@Sendable (any ATTLink) -> Void)?
        var controller: ControllerInfo?
    }

    private let host: UserlandHost?
    private let state: Mutex<State>
    /// Our identity and the bonds, when the managers keep them (see ``BondKeeper``).
    private let bonds: (any BondKeeper)?
    /// ``PairingConfiguration/automatic``: the links' GATT retry may pair.
    private let pairsAutomatically: Bool

    /// - Parameters:
    ///   - endpoint: the controller's stream, as typed by the caller (never rendered and
    ///     parsed again), or why the caller's adapter name does not name one.
    ///   - snoop: records every H4 packet in both directions, through the host's recorder.
    ///   - bonds: our identity and the bonds. Without it, a new identity per controller.
    ///   - pairing: how the links pair, and who answers for the user.
    init(endpoint: Result<H4Endpoint, H4Endpoint.ParseError>, snoop: SnoopFile? = nil, bonds: (any BondKeeper)? = nil,
         pairing: PairingConfiguration = PairingConfiguration()) {
        pairsAutomatically = pairing.automatic
        // The controller's public address when it has one (the host finds out during
        // initialisation); else a static random address (two top bits set), which
        // emulated controllers without a public address route on. Kept in the store, the
        // random one is the same in every process, so peers find their bond with us again;
        // the IRK goes with either in key distribution.
        let identity = bonds?.hostIdentity() ?? HostIdentity.generate()
        let randomAddress = identity.address
        self.randomAddress = randomAddress
        self.bonds = bonds
        var security = pairing.securityManager
        if let irk = SMPKey(identity.identityResolvingKey) {
            security.identity = SMPConfiguration.LocalIdentity(identityResolvingKey: irk,
                                                               address: SMPAddress(identity.address, isRandom: true))
        }
        var opened: UserlandHost?
        var failure: String?
        do {
            opened = try UserlandHost(endpoint: try endpoint.get(),
                                      configuration: HostConfiguration(randomAddress: randomAddress, pairingEnabled: true,
                                                                    prefersPublicAddress: true),
                                      recorder: snoop.map(BTSnoopRecorder.init(file:)), routesATTToChannels: true,
                                      security: security, passkey: pairing.passkey, agent: pairing.agent, bonds: bonds)
        } catch {
            failure = "\(error)"
        }
        host = opened
        state = Mutex(State())
        if let failure {
            state.withLock { $0.status = ManagerStatus(cause: .transportUnreachable(failure)) }
        }
        if let opened {
            // libcrypto's one-time setup, paid beside the controller's initialisation
            // instead of inside the first pairing (Docs/security-manager.md, "Speed").
            Task.detached(priority: .utility) { SecurityManager.prepareCrypto() }
            Task { [self] in await run(opened) }
        }
    }

    deinit { host?.close() }

    private func run(_ host: UserlandHost) async {
        do {
            let controller = try await host.start()
            state.withLock { $0.controller = controller }
            update(.poweredOn)
        } catch {
            update(ManagerStatus(cause: .controllerFailed(error.description)))
            return
        }
        for await event in host.events {
            switch event {
            case .advertisingReport(let report):
                let advertisement = Advertisement(report)
                for scanner in state.withLock({ Array($0.scanners.values) }) { scanner(advertisement) }
            case .ready(let info):
                // A reset's initialisation again: what the controller is now.
                state.withLock { $0.controller = info }
            case .connected(let info) where info.role == .peripheral:
                if let accept = state.withLock({ $0.acceptor }), let channel = host.attChannel(for: info.handle) {
                    accept(UserlandLink(channel: channel, pairsAutomatically: pairsAutomatically))
                }
            default:
                break
            }
        }
        update(ManagerStatus(cause: .controllerFailed(host.stopReason?.description ?? "the userland host stopped")))
    }

    private func update(_ status: ManagerStatus) {
        let sinks = state.withLock { state -> [AsyncStream<ManagerStatus>.Continuation] in
            state.status = status
            return state.statusSinks
        }
        for sink in sinks { sink.yield(status) }
    }

    var status: ManagerStatus { state.withLock { $0.status } }

    /// The host's own count of the controller input it dropped, every warning included
    /// (those it summed up, and those of an initialisation that never finished).
    var hostWarnings: HostWarningCounts { host?.warningCounts ?? HostWarningCounts() }

    func statusUpdates() -> AsyncStream<ManagerStatus> {
        let (stream, sink) = AsyncStream.makeStream(of: ManagerStatus.self)
        state.withLock { $0.statusSinks.append(sink) }
        return stream
    }

    /// The host, when it is ready for work.
    private func readyHost() throws(AttuneError) -> UserlandHost {
        let status = self.status
        guard let host, status.state == .poweredOn else {
            throw .unavailable(status.cause ?? .controllerFailed(
                status.state == .resetting ? "the controller is being reset" : "the controller is still initialising"))
        }
        return host
    }

    /// HCI_Reset through the host, which then runs its initialisation again as at start:
    /// the host reports every link down (its channel closes with Connection Terminated By
    /// Local Host), fails the connect in progress, and the controller comes back neither
    /// scanning nor advertising. A controller that ignores the reset stops the host after
    /// the command timeout (the status then says so, as for any dead controller).
    func resetController() async throws(AttuneError) {
        let host = try readyHost()
        state.withLock { state in
            state.scanners = [:]
            state.acceptor = nil
        }
        update(ManagerStatus(state: .resetting))
        do throws(HostError) {
            _ = try await host.perform(.reset)
        } catch {
            // The host stopped; ``run(_:)`` publishes the cause when its events end.
            if case .commandTimeout = error { throw .controllerTimeout(error.description) }
            throw .unavailable(.controllerFailed(error.description))
        }
        update(.poweredOn)
    }

    func startScanning(_ report: @escaping @Sendable (Advertisement) -> Void) throws(AttuneError) -> Int {
        let host = try readyHost()
        let (token, first) = state.withLock { state -> (Int, Bool) in
            let token = state.nextToken
            state.nextToken += 1
            state.scanners[token] = report
            return (token, state.scanners.count == 1)
        }
        if first { host.submit(.startScanning(ScanConfiguration())) }
        return token
    }

    func stopScanning(_ token: Int) {
        let last = state.withLock { state -> Bool in
            guard state.scanners.removeValue(forKey: token) != nil else { return false }
            return state.scanners.isEmpty
        }
        if last { host?.submit(.stopScanning) }
    }

    func connect(to address: BluetoothAddress, type: BluetoothAddressType) async throws(AttuneError) -> any ATTLink {
        let host = try readyHost()
        // The managers bound the attempt themselves and cancel the task; the host's own
        // timeout is only a backstop.
        let result = await withTaskCancellationHandler {
            do throws(HostError) {
                return Result<HostCompletion, HostError>.success(try await host.perform(.connect(
                    peer: address, peerAddressType: type.rawValue, parameters: ConnectionParameters(),
                    timeout: .seconds(3600))))
            } catch {
                return .failure(error)
            }
        } onCancel: {
            host.submit(.cancelConnect)
        }
        switch result {
        case .success(.connected(let info)):
            guard let channel = host.attChannel(for: info.handle) else {
                throw .connectionFailed(.transport("the link went down as it came up"))
            }
            let encrypted = await encryptWithBond(host, info)
            if Task.isCancelled {
                // The attempt was given up while encrypting: the link was asked to go down.
                channel.close()
                throw .cancelled
            }
            return UserlandLink(channel: channel, encrypted: encrypted, pairsAutomatically: pairsAutomatically)
        case .success(let other):
            throw .protocolError("connect completed with \(other)")
        case .failure(.connectionCancelled):
            throw .cancelled
        case .failure(.connectionTimedOut):
            throw .connectionTimeout
        case .failure(.connectionFailed(let status)), .failure(.commandFailed(_, let status)):
            throw .connectionFailed(.hci(status))
        case .failure(let error):
            throw .connectionFailed(.transport(error.description))
        }
    }

    /// A bonded peripheral's link is encrypted with the stored LTK before anyone uses it,
    /// so the GATT start-up (subscriptions restored included) runs encrypted. A refusal
    /// (the peer lost the bond: PIN or Key Missing) is reported and the link goes on
    /// unencrypted; the GATT client pairs again when an attribute needs it.
    private func encryptWithBond(_ host: UserlandHost, _ info: ConnectionInfo) async -> Bool {
        guard let bonds, let bond = bonds.bond(for: info.peerAddress, type: info.peerAddressType, role: .central) else {
            return false
        }
        do throws(AttuneError) {
            // A controller or peer that never reports Encryption Change cannot hold the
            // connect: the managers' connect timeout cancels it, and the link goes down.
            let result = await withTaskCancellationHandler {
                do throws(AttuneError) {
                    try await host.encrypt(on: info.handle, with: bond)
                    return Result<Void, AttuneError>.success(())
                } catch {
                    return .failure(error)
                }
            } onCancel: {
                host.requestDisconnect(handle: info.handle)
            }
            try result.get()
            return true
        } catch {
            // Given up on (cancelled) is no verdict on the bond.
            if !Task.isCancelled { bonds.bondFailed(for: info.peerAddress, type: info.peerAddressType, error) }
            return false
        }
    }

    func startAdvertising(_ parameters: AdvertisingParameters,
                          accept: @escaping @Sendable (any ATTLink) -> Void) throws(AttuneError) {
        let host = try readyHost()
        let (data, scanResponse) = Self.split(parameters.advertisingData)
        state.withLock { $0.acceptor = accept }
        host.submit(.startAdvertising(AdvertisingConfiguration(
            data: data, scanResponse: scanResponse, connectable: parameters.isConnectable)))
    }

    func stopAdvertising() {
        state.withLock { $0.acceptor = nil }
        host?.submit(.stopAdvertising)
    }

    func settle() async {
        // The host sends commands one after another: once a command asked for now is
        // answered, every stop submitted before it has been carried out.
        _ = try? await host?.perform(.rawCommand(opcode: HCIOpcode(ogf: 0x04, ocf: 0x0001), parameters: []))
    }

    func setAdvertisingEnabled(_ enabled: Bool) {
        guard state.withLock({ $0.acceptor != nil }) else { return }
        host?.submit(.setAdvertisingEnabled(enabled))
    }

    /// Legacy advertising carries 31 bytes, and so does the scan response: whole AD
    /// structures fill the advertisement first, the rest go to the scan response, and
    /// what fits in neither is left out.
    static func split(_ structures: [UInt8]) -> ([UInt8], [UInt8]) {
        var data: [UInt8] = [], response: [UInt8] = []
        var index = 0
        while index < structures.count {
            let length = Int(structures[index]) + 1
            let end = min(structures.count, index + length)
            let structure = Array(structures[index..<end])
            if data.count + structure.count <= 31 {
                data += structure
            } else if response.count + structure.count <= 31 {
                response += structure
            }
            index = end
        }
        return (data, response)
    }
}
