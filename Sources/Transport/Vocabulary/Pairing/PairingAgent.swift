/// The requests for the user while pairing, as an asynchronous sequence: iterate it (one
/// consumer) and answer each ``PairingRequest``. Give it to a manager through
/// ``PairingConfiguration/agent``.
///
/// ```swift
/// let agent = PairingAgent()
/// Task {
///     for await request in agent {
///         switch request.kind {
///         case .displayPasskey(let passkey): print("type \(PairingRequest.digits(passkey)) on the device")
///         case .enterPasskey: request.respond(passkey: readPasskey())
///         case .confirmNumber(let number): request.confirm(ask("Does the device show \(number)?"))
///         case .acceptJustWorks: request.accept()
///         }
///     }
/// }
/// ```
///
/// At most ``capacity`` requests wait; one more (or any after ``finish()``) is refused
/// at once, so a pairing never waits on a question nobody will read.
public final class PairingAgent: AsyncSequence, Sendable {
    public typealias Element = PairingRequest
    public typealias AsyncIterator = AsyncStream<PairingRequest>.Iterator

    /// How many unread requests may wait.
    public static let capacity = 16

    private let stream: AsyncStream<PairingRequest>
    private let continuation: AsyncStream<PairingRequest>.Continuation

    public init() {
        (stream, continuation) = AsyncStream.makeStream(of: PairingRequest.self,
                                                        bufferingPolicy: .bufferingOldest(Self.capacity))
    }

    public func makeAsyncIterator() -> AsyncIterator { stream.makeAsyncIterator() }

    /// Ends the sequence; requests after this are refused.
    public func finish() { continuation.finish() }

    /// Hands a request to the consumer. Called under a host's lock, so a refusal (full or
    /// finished) is answered from a task of its own: the answer takes that lock too.
    func ask(_ request: PairingRequest) {
        switch continuation.yield(request) {
        case .enqueued: break
        case .dropped, .terminated:
            guard request.needsAnswer else { return }
            Task { request.refuse() }
        @unknown default: break
        }
    }
}
