/// An HCI event packet, decoded for the events an LE host and a capture decoder need
/// (Vol 4 Part E §7.7). Everything else is ``unknown(code:parameters:)``, and LE Meta
/// subevents not listed here are ``unknownLEMeta(subevent:parameters:)``.
public enum HCIEvent: Hashable, Sendable {
    case disconnectionComplete(DisconnectionComplete)
    case encryptionChange(EncryptionChange)
    case commandComplete(CommandComplete)
    case commandStatus(CommandStatus)
    case numberOfCompletedPackets(NumberOfCompletedPackets)
    /// Legacy and enhanced (v1, v2) LE Connection Complete.
    case leConnectionComplete(LEConnectionComplete)
    case leAdvertisingReport([LEAdvertisingReport])
    case leExtendedAdvertisingReport([LEExtendedAdvertisingReport])
    case leDataLengthChange(LEDataLengthChange)
    case lePHYUpdateComplete(LEPHYUpdateComplete)
    case unknownLEMeta(subevent: UInt8, parameters: ArraySlice<UInt8>)
    case unknown(code: UInt8, parameters: ArraySlice<UInt8>)

    /// Event codes (Vol 4 Part E §7.7).
    public enum Code {
        public static let disconnectionComplete: UInt8 = 0x05
        public static let encryptionChange: UInt8 = 0x08
        public static let commandComplete: UInt8 = 0x0E
        public static let commandStatus: UInt8 = 0x0F
        public static let numberOfCompletedPackets: UInt8 = 0x13
        public static let leMeta: UInt8 = 0x3E
        public static let encryptionChangeV2: UInt8 = 0x59
    }

    /// Decodes an event packet without its H4 indicator: event code, parameter length,
    /// parameters. The parameter length must match the bytes present. Errors carry offsets
    /// from the first byte of `bytes`.
    public init(decoding bytes: ArraySlice<UInt8>) throws(HCIDecodingError) {
        var r = PacketReader(bytes, structure: "HCI Event")
        let code = try r.uint8("event code")
        let length = Int(try r.uint8("parameter total length"))
        guard r.remaining == length else {
            throw r.error(.lengthMismatch(field: "parameter total length", declared: length, actual: r.remaining), at: 1)
        }
        let parameters = r.rest()
        do {
            switch code {
            case Code.disconnectionComplete:
                self = .disconnectionComplete(try DisconnectionComplete(decoding: parameters))
            case Code.encryptionChange, Code.encryptionChangeV2:
                self = .encryptionChange(try EncryptionChange(decoding: parameters, version2: code == Code.encryptionChangeV2))
            case Code.commandComplete:
                self = .commandComplete(try CommandComplete(decoding: parameters))
            case Code.commandStatus:
                self = .commandStatus(try CommandStatus(decoding: parameters))
            case Code.numberOfCompletedPackets:
                self = .numberOfCompletedPackets(try NumberOfCompletedPackets(decoding: parameters))
            case Code.leMeta:
                self = try Self.decodeLEMeta(parameters)
            default:
                self = .unknown(code: code, parameters: parameters)
            }
        } catch {
            // Offsets inside parameters become offsets inside the packet.
            var shifted = error
            shifted.offset &+= 2
            throw shifted
        }
    }

    private static func decodeLEMeta(_ parameters: ArraySlice<UInt8>) throws(HCIDecodingError) -> HCIEvent {
        guard let subevent = parameters.first else {
            throw HCIDecodingError(.truncated(field: "subevent code", needed: 1, available: 0), in: "LE Meta", offset: 0)
        }
        let body = parameters.dropFirst()
        do {
            switch subevent {
            case LEMetaSubevent.connectionComplete, LEMetaSubevent.enhancedConnectionComplete,
                 LEMetaSubevent.enhancedConnectionCompleteV2:
                return .leConnectionComplete(try LEConnectionComplete(decoding: body, subevent: subevent))
            case LEMetaSubevent.advertisingReport:
                return .leAdvertisingReport(try LEAdvertisingReport.decodeAll(body))
            case LEMetaSubevent.extendedAdvertisingReport:
                return .leExtendedAdvertisingReport(try LEExtendedAdvertisingReport.decodeAll(body))
            case LEMetaSubevent.dataLengthChange:
                return .leDataLengthChange(try LEDataLengthChange(decoding: body))
            case LEMetaSubevent.phyUpdateComplete:
                return .lePHYUpdateComplete(try LEPHYUpdateComplete(decoding: body))
            default:
                return .unknownLEMeta(subevent: subevent, parameters: body)
            }
        } catch {
            var shifted = error
            shifted.offset &+= 1
            throw shifted
        }
    }
}
