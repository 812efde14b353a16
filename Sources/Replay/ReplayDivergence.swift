import ATT
import Capture

/// Where our engine answered differently from the captured peer.
///
/// Both answers come decoded, once: the captured one as the capture decoded it, ours when
/// the divergence is found. Explanations and renderings read these decodings.
public struct ReplayDivergence: Sendable {
    /// Index, in the conversation, of the PDU that was fed in.
    public var index: Int
    /// The PDU that was fed in.
    public var input: CapturedATTPDU
    /// What the captured peer answered (nil: nothing).
    public var expected: [UInt8]?
    /// What our engine answered (nil: nothing).
    public var actual: [UInt8]?
    /// The captured answer, decoded (nil: nothing).
    public var expectedPDU: Result<ATTPDU, ATTDecodingError>?
    /// Our answer, decoded (nil: nothing).
    public var actualPDU: Result<ATTPDU, ATTDecodingError>?
    /// Why these differ, when the difference has a known cause.
    public var cause: DivergenceCause?
    /// The role our engine played: as server it answered `input`; as client `input` is
    /// what the captured client sent where ours sent `actual`.
    public var role: ATTRole

    /// - Parameters:
    ///   - expected: the captured PDU that answered `input` (or that the captured client
    ///     sent in our client's place); its decoding is the capture's.
    ///   - actual: what our engine sent, decoded here.
    public init(index: Int, input: CapturedATTPDU, expected: CapturedATTPDU?, actual: [UInt8]?,
                cause: DivergenceCause? = nil, role: ATTRole = .server) {
        self.index = index
        self.input = input
        self.expected = expected.map { Array($0.bytes) }
        self.expectedPDU = expected?.pdu
        self.actual = actual
        self.actualPDU = actual.map { bytes in
            Result { () throws(ATTDecodingError) -> ATTPDU in try ATTPDU.decode(bytes[...]) }
        }
        self.cause = cause
        self.role = role
    }

    /// The captured answer, if it decoded.
    public var expectedDecoded: ATTPDU? { try? expectedPDU?.get() }
    /// Our answer, if it decoded.
    public var actualDecoded: ATTPDU? { try? actualPDU?.get() }
}

extension Result where Failure == ATTDecodingError {
    init(catching body: () throws(ATTDecodingError) -> Success) {
        do { self = .success(try body()) } catch { self = .failure(error) }
    }
}
