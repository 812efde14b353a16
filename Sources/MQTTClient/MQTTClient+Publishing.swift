import CMosquitto
import Glibc

extension MQTTClient {
    /// Queues a message for the broker; returns at once. While the broker is away the
    /// message waits; when the queue is full the oldest waiting message is dropped and
    /// counted. Throws only for a message MQTT cannot carry, or after ``close()``.
    public func publish(_ message: MQTTOutboundMessage) throws(MQTTError) {
        guard Self.validTopicName(message.topic) else { throw .invalidTopic(message.topic) }
        guard message.payload.count <= Self.maximumPayload else {
            throw .tooLarge(what: "payload", size: message.payload.count, limit: Self.maximumPayload)
        }
        if let data = message.correlationData, data.count > 65_535 {
            throw .tooLarge(what: "correlation data", size: data.count, limit: 65_535)
        }
        if let topic = message.responseTopic, !Self.validTopicName(topic) { throw .invalidTopic(topic) }
        let capacity = max(1, configuration.outboundCapacity)
        let wake = try state.withLock { state throws(MQTTError) -> Bool in
            guard !state.phase.isClosing else { throw .closed }
            if state.queue.count + state.inFlight.count >= capacity {
                state.statistics.droppedMessages += 1
                // Handed-over messages cannot be recalled; then the new one is what goes.
                guard state.queue.popFirst() != nil else { return false }
            }
            state.nextSequence &+= 1
            state.queue.append(Queued(message: message, sequence: state.nextSequence))
            guard state.phase == .connected, !state.pumpScheduled else { return false }
            state.pumpScheduled = true
            return true
        }
        // One wake-up for a burst: the loop hands over everything queued by then.
        if wake { loop.execute { [weak self] in self?.scheduledPump() } }
    }

    /// Hands queued messages to libmosquitto while connected and the window has room; on
    /// the loop thread. The packets are only queued there; ``afterIO()`` writes them.
    func pump() {
        var batch: [Queued] = []
        var handed: [(Int32, Queued)] = []
        for _ in 0..<4 {
            batch.removeAll(keepingCapacity: true)
            state.withLock { state in
                guard state.phase == .connected || state.phase == .draining else { return }
                let room = min(window - state.inFlight.count, 512)
                guard room > 0 else { return }
                if batch.capacity < room { batch.reserveCapacity(room) }
                while batch.count < room, let next = state.queue.popFirst() { batch.append(next) }
            }
            guard !batch.isEmpty else { return }
            handed.removeAll(keepingCapacity: true)
            var unsent = batch.count
            var rejected = 0
            for (index, queued) in batch.enumerated() {
                var mid: Int32 = 0
                let rc = send(queued.message, mid: &mid)
                if rc.isMosquittoSuccess {
                    handed.append((mid, queued))
                } else if rc == Int32(MOSQ_ERR_NO_CONN.rawValue) || rc == Int32(MOSQ_ERR_CONN_LOST.rawValue)
                            || rc == Int32(MOSQ_ERR_NOMEM.rawValue) {
                    unsent = index
                    break
                } else {
                    // Refused for good (larger than the broker's maximum packet size, say).
                    rejected += 1
                }
                unsent = index + 1
            }
            state.withLock { state in
                for (mid, queued) in handed { state.inFlight[mid] = queued }
                state.statistics.rejected += rejected
                for queued in batch[unsent...].reversed() { state.queue.prepend(queued) }
            }
            if unsent < batch.count { return }
        }
    }

    /// One `mosquitto_publish_v5`; properties are built only for messages that have them.
    private func send(_ message: MQTTOutboundMessage, mid: inout Int32) -> Int32 {
        var properties: OpaquePointer?
        defer { if properties != nil { mosquitto_property_free_all(&properties) } }
        if message.hasProperties {
            if let expiry = message.messageExpiry {
                _ = mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_MESSAGE_EXPIRY_INTERVAL.rawValue), expiry)
            }
            if let topic = message.responseTopic {
                _ = mosquitto_property_add_string(&properties, Int32(MQTT_PROP_RESPONSE_TOPIC.rawValue), topic)
            }
            if let data = message.correlationData {
                _ = data.withUnsafeBytes { bytes in
                    mosquitto_property_add_binary(&properties, Int32(MQTT_PROP_CORRELATION_DATA.rawValue),
                                                  bytes.baseAddress, UInt16(clamping: bytes.count))
                }
            }
        }
        return message.payload.withUnsafeBytes { bytes in
            mosquitto_publish_v5(handle.pointer, &mid, message.topic, Int32(clamping: bytes.count), bytes.baseAddress,
                                 message.qos.rawValue, message.retain, properties)
        }
    }

    /// PUBACK for QoS 1, or a QoS 0 packet fully written.
    func didPublish(mid: Int32, reasonCode: Int32) {
        let drained = state.withLock { state -> Bool in
            guard let queued = state.inFlight.removeValue(forKey: mid) else { return false }
            switch queued.message.qos {
            case .atMostOnce: state.statistics.written += 1
            case .atLeastOnce:
                // 0x10 "no matching subscribers" is a success; 0x80 and up are refusals.
                if reasonCode < 0x80 { state.statistics.acknowledged += 1 } else { state.statistics.rejected += 1 }
            }
            return state.phase == .draining && state.queue.isEmpty && state.inFlight.isEmpty
        }
        // Not from inside libmosquitto's callback: DISCONNECT goes out on the loop's next turn.
        if drained { loop.execute { [weak self] in self?.shutDown(graceful: true) } }
    }

    func didSubscribe(mid: Int32, granted: Int32?) {
        guard let filter = state.withLock({ $0.subscribeRequests.removeValue(forKey: mid) }) else { return }
        let qos = granted.flatMap { $0 < 0x80 ? MQTTQoS(rawValue: min($0, 1)) : nil }
        events.buffer.offer(.subscribed(filter: filter, grantedQoS: qos))
    }

    func didReceive(_ message: mosquitto_message, properties: OpaquePointer?) {
        guard let topicPointer = message.topic else { return }
        let length = Int(max(0, message.payloadlen))
        let payload: [UInt8]
        if let bytes = message.payload, length > 0 {
            payload = Array(UnsafeRawBufferPointer(start: bytes, count: length))
        } else {
            payload = []
        }
        var delivered = MQTTMessage(topic: String(cString: topicPointer), payload: payload,
                                    qos: message.qos >= 1 ? .atLeastOnce : .atMostOnce, retain: message.retain)
        if let properties {
            var text: UnsafeMutablePointer<CChar>?
            if mosquitto_property_read_string(properties, Int32(MQTT_PROP_RESPONSE_TOPIC.rawValue), &text, false) != nil,
               let text {
                delivered.responseTopic = String(cString: text)
                free(text)
            }
            var data: UnsafeMutableRawPointer?
            var dataLength: UInt16 = 0
            if mosquitto_property_read_binary(properties, Int32(MQTT_PROP_CORRELATION_DATA.rawValue), &data,
                                              &dataLength, false) != nil {
                if let data {
                    delivered.correlationData = Array(UnsafeRawBufferPointer(start: data, count: Int(dataLength)))
                    free(data)
                } else {
                    delivered.correlationData = []
                }
            }
            var expiry: UInt32 = 0
            if mosquitto_property_read_int32(properties, Int32(MQTT_PROP_MESSAGE_EXPIRY_INTERVAL.rawValue), &expiry, false) != nil {
                delivered.messageExpiry = expiry
            }
        }
        messages.buffer.offer(delivered)
    }
}
