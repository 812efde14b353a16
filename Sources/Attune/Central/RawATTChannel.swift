import Transport

/// The ATT channel of one LE link as raw PDUs, below the GATT client: for tools that must
/// send what no client would and see every PDU the peer sends, such as the conformance
/// tester of `attune conformance --against`, or probes of a device's robustness.
///
/// Nothing on it is interpreted: no MTU exchange, no transactions, no timeouts, no
/// confirmations of indications. The caller owns the whole protocol. The channel opens its
/// own controller on the transport, beside any ``CentralManager``.
///
/// ```swift
/// let channel = try await RawATTChannel.open(on: .memory(radio), to: address, type: .public)
/// channel.send([0x02, 0x17, 0x00])                    // Exchange MTU Request, 23
/// for event in await channel.receive() { print(event) } // .pdu([0x03, ...])
/// channel.close()
/// ```
public final class RawATTChannel: Sendable {
    /// What the peer did.
    public enum Event: Hashable, Sendable {
        /// One whole ATT PDU, opcode first.
        case pdu([UInt8])
        /// The link ended, and why. Nothing follows it.
        case closed(DisconnectReason)
    }

    private let link: any ATTLink
    /// Kept for as long as the channel: the controller the link runs on.
    private let backend: any ControllerBackend

    private init(link: any ATTLink, backend: any ControllerBackend) {
        self.link = link
        self.backend = backend
    }

    /// Connects to the peripheral at `address` on `transport` and opens its ATT channel.
    /// Throws ``AttuneError/connectionTimeout`` when no link comes within `timeout`, and
    /// ``AttuneError/unavailable(_:)`` with the cause when the controller cannot be used.
    public static func open(on transport: BluetoothTransport, to address: BluetoothAddress,
                            type: BluetoothAddressType = .public,
                            timeout: Duration = .seconds(30)) async throws(AttuneError) -> RawATTChannel {
        let backend = transport.makeBackend()
        // The controller reports its state once initialised; poll as the managers' users do.
        let ready = ContinuousClock.now + .seconds(10)
        while backend.status.state == .unknown, ContinuousClock.now < ready {
            do { try await Task.sleep(for: .milliseconds(20)) } catch { throw .cancelled }
        }
        let status = backend.status
        guard status.state == .poweredOn else {
            if let cause = status.cause { throw .unavailable(cause) }
            throw .controllerTimeout("the controller is \(status.state), not powered on")
        }
        let result: Result<(any ATTLink)?, AttuneError> = await withTaskGroup(of: Result<(any ATTLink)?, AttuneError>.self) { group in
            group.addTask {
                do throws(AttuneError) { return .success(try await backend.connect(to: address, type: type)) } catch {
                    return .failure(error)
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return .success(nil)
            }
            let first = await group.next() ?? .success(nil)
            group.cancelAll()
            return first
        }
        switch result {
        case .success(let link?): return RawATTChannel(link: link, backend: backend)
        case .success(nil): throw .connectionTimeout
        case .failure(let error): throw error
        }
    }

    /// Queues one PDU (opcode first); never blocks. Dropped once the link has ended.
    public func send(_ pdu: [UInt8]) { link.send(pdu) }

    /// What the peer sent since the last call, oldest first, waiting for at least one
    /// event; the last batch ends with ``Event/closed(_:)``, after which the caller stops
    /// asking. For one caller at a time.
    public func receive() async -> [Event] {
        await link.receive().map { event in
            switch event {
            case .received(let pdu): .pdu(pdu)
            case .closed(let reason): .closed(reason)
            }
        }
    }

    /// Ends the link from our side; ``receive()`` then delivers ``Event/closed(_:)``.
    public func close() { link.close() }
}
