import BluetoothCore
import Foundation

/// The retained payload of `attune/dev/<name>/owner`: which gateway holds the device's
/// link, and until when (wall-clock seconds since 1970, so gateways on different
/// machines can compare it; their clocks are assumed to agree within a second or two).
public struct LeaseRecord: Hashable, Sendable {
    /// The owner's `client_id`.
    public var gateway: String
    /// When the lease lapses unless renewed.
    public var until: Double
    /// A claim waiting to settle, not a held lease (`"claim": true`; absent means false).
    /// An owner answers a claim with its own record and keeps the device, so a gateway
    /// that starts later (and has not seen the retained record yet) cannot take it from
    /// its incumbent; only competing claims are decided by the lowest gateway id.
    public var claim: Bool

    /// Payloads longer than this are refused before parsing.
    public static let maximumPayload = 1024
    /// Gateway ids longer than this (in bytes) are refused.
    public static let maximumGatewayLength = 256

    public init(gateway: String, until: Double, claim: Bool = false) {
        self.gateway = gateway
        self.until = until
        self.claim = claim
    }

    /// `{"gateway":"attune-kitchen","until":1796042144.06}`, with `,"claim":true` for a claim.
    public func jsonBytes() -> [UInt8] {
        var out = "{\"gateway\":"
        out += Self.quoted(gateway)
        out += ",\"until\":"
        out += until.isFinite ? "\(until)" : "0"
        if claim { out += ",\"claim\":true" }
        out += "}"
        return Array(out.utf8)
    }

    /// Decodes a payload from the broker, which anyone can write: every malformed form is
    /// a ``LeasePayloadError`` naming the problem. Unknown keys are ignored, for later
    /// versions.
    public init(json bytes: [UInt8]) throws(LeasePayloadError) {
        guard bytes.count <= Self.maximumPayload else { throw .tooLong(bytes.count) }
        let wire: Wire
        do {
            wire = try JSONDecoder().decode(Wire.self, from: Data(bytes))
        } catch let DecodingError.keyNotFound(key, _) {
            throw .missingField(key.stringValue)
        } catch let DecodingError.typeMismatch(_, context) {
            throw .wrongType(context.codingPath.first?.stringValue ?? "payload")
        } catch let DecodingError.valueNotFound(_, context) {
            throw .wrongType(context.codingPath.first?.stringValue ?? "payload")
        } catch {
            throw .notJSON
        }
        guard !wire.gateway.isEmpty, wire.gateway.utf8.count <= Self.maximumGatewayLength else { throw .badGateway }
        guard wire.until.isFinite, wire.until >= 0 else { throw .badUntil }
        self.init(gateway: wire.gateway, until: wire.until, claim: wire.claim ?? false)
    }

    /// The payload's shape for the decoder (booleans and strings are not numbers to it).
    private struct Wire: Decodable {
        var gateway: String
        var until: Double
        var claim: Bool?
    }

    private static func quoted(_ s: String) -> String { JSONString.quoted(s) }
}

/// Why an owner payload was refused.
public enum LeasePayloadError: Error, Hashable, Sendable, CustomStringConvertible {
    case tooLong(Int)
    case notJSON
    case missingField(String)
    case wrongType(String)
    case badGateway
    case badUntil

    public var description: String {
        switch self {
        case .tooLong(let n): "owner payload: \(n) bytes, more than \(LeaseRecord.maximumPayload)"
        case .notJSON: "owner payload: not JSON"
        case .missingField(let f): "owner payload: \(f): missing"
        case .wrongType(let f): "owner payload: \(f): wrong type"
        case .badGateway: "owner payload: gateway: empty or longer than \(LeaseRecord.maximumGatewayLength) bytes"
        case .badUntil: "owner payload: until: not a finite time at or after 1970"
        }
    }
}
