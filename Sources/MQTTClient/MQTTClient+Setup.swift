import CMosquitto

extension MQTTClient {
    /// A configured `struct mosquitto` in MQTT 5 mode with callbacks set; destroyed again on error.
    static func makeHandle(_ configuration: MQTTConfiguration) throws(MQTTError) -> MosquittoHandle {
        guard let pointer = mosquitto_new(configuration.clientID, configuration.cleanStart, nil) else {
            throw .library(operation: "mosquitto_new", code: -1, message: "out of memory or invalid client id")
        }
        do {
            try configure(pointer, configuration)
        } catch {
            mosquitto_destroy(pointer)
            throw error
        }
        setCallbacks(pointer)
        return MosquittoHandle(pointer: pointer)
    }

    private static func check(_ rc: Int32, _ operation: String) throws(MQTTError) {
        guard rc.isMosquittoSuccess else {
            throw .library(operation: operation, code: rc, message: mosquittoMessage(rc))
        }
    }

    private static func configure(_ pointer: OpaquePointer, _ configuration: MQTTConfiguration) throws(MQTTError) {
        try check(mosquitto_int_option(pointer, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5), "protocol version")
        // "Threaded" tells libmosquitto that someone else drives its socket: a publish then
        // only queues the packet, and our one loop_write per turn sends a whole batch.
        try check(mosquitto_threaded_set(pointer, true), "mosquitto_threaded_set")
        // libmosquitto keeps only 20 QoS 1 messages unacknowledged by default and holds the
        // rest back until PUBACKs return: at thousands of values a second that round trip,
        // not the broker, sets the rate. Our window is the bound instead (the broker's
        // CONNACK Receive Maximum lowers it further when it grants less).
        try check(mosquitto_int_option(pointer, MOSQ_OPT_SEND_MAXIMUM, Int32(window(configuration))), "send maximum")
        try check(mosquitto_int_option(pointer, MOSQ_OPT_RECEIVE_MAXIMUM, Int32(configuration.receiveMaximum)),
                  "receive maximum")
        if configuration.username != nil || configuration.password != nil {
            try check(mosquitto_username_pw_set(pointer, configuration.username ?? "", configuration.password),
                      "mosquitto_username_pw_set")
        }
        if let tls = configuration.tls {
            try check(mosquitto_tls_set(pointer, tls.caFile, tls.caPath ?? (tls.caFile == nil ? "/etc/ssl/certs" : nil),
                                        tls.certFile, tls.keyFile, nil), "mosquitto_tls_set")
        }
        if let will = configuration.will {
            guard validTopicName(will.topic) else { throw .invalidTopic(will.topic) }
            guard will.payload.count <= Self.maximumPayload else {
                throw .tooLarge(what: "will payload", size: will.payload.count, limit: Self.maximumPayload)
            }
            var properties: OpaquePointer?
            if let expiry = will.messageExpiry {
                try check(mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_MESSAGE_EXPIRY_INTERVAL.rawValue), expiry),
                          "will message expiry")
            }
            let rc = will.payload.withUnsafeBytes { bytes in
                mosquitto_will_set_v5(pointer, will.topic, Int32(bytes.count), bytes.baseAddress,
                                      will.qos.rawValue, will.retain, properties)
            }
            // On success the property list belongs to libmosquitto; on error it is ours.
            if !rc.isMosquittoSuccess { mosquitto_property_free_all(&properties) }
            try check(rc, "mosquitto_will_set_v5")
        }
    }

    /// The largest payload MQTT's remaining-length field leaves room for, less headers.
    static let maximumPayload = 268_435_455 - 65_535 - 1_024

    static func client(_ userdata: UnsafeMutableRawPointer?) -> MQTTClient? {
        guard let userdata else { return nil }
        return Unmanaged<MQTTClient>.fromOpaque(userdata).takeUnretainedValue()
    }

    /// libmosquitto calls these from inside loop_read/loop_write/loop_misc, which only the
    /// loop thread calls; the client is the userdata, held unretained (it owns the handle).
    private static func setCallbacks(_ pointer: OpaquePointer) {
        mosquitto_connect_v5_callback_set(pointer) { _, userdata, rc, flags, _ in
            MQTTClient.client(userdata)?.didConnect(rc: rc, flags: flags)
        }
        mosquitto_disconnect_v5_callback_set(pointer) { _, userdata, rc, _ in
            MQTTClient.client(userdata)?.didDisconnect(rc: rc)
        }
        mosquitto_publish_v5_callback_set(pointer) { _, userdata, mid, reason, _ in
            MQTTClient.client(userdata)?.didPublish(mid: mid, reasonCode: reason)
        }
        mosquitto_subscribe_v5_callback_set(pointer) { _, userdata, mid, count, granted, _ in
            let first: Int32? = count > 0 ? granted?.pointee : nil
            MQTTClient.client(userdata)?.didSubscribe(mid: mid, granted: first)
        }
        mosquitto_message_v5_callback_set(pointer) { _, userdata, message, properties in
            guard let message else { return }
            MQTTClient.client(userdata)?.didReceive(message.pointee, properties: properties)
        }
    }
}
