import CMosquitto

/// The `struct mosquitto *` an ``MQTTClient`` owns. libmosquitto is not safe to drive from
/// two threads at once, so every call on it after set-up is made on the event loop's
/// thread (or in `deinit`, when no other reference is left): that discipline, not the
/// type system, is what makes sharing the pointer sound.
struct MosquittoHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}

/// libmosquitto's process-wide initialisation, run once before the first client.
enum MosquittoLibrary {
    static let ready: Bool = mosquitto_lib_init() == Int32(MOSQ_ERR_SUCCESS.rawValue)
}

extension Int32 {
    /// Whether a libmosquitto return code is `MOSQ_ERR_SUCCESS`.
    var isMosquittoSuccess: Bool { self == Int32(MOSQ_ERR_SUCCESS.rawValue) }
}

/// libmosquitto's text for an error code.
func mosquittoMessage(_ code: Int32) -> String {
    guard let text = mosquitto_strerror(code) else { return "error \(code)" }
    return String(cString: text)
}
