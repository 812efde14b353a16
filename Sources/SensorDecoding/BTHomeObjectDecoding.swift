import BluetoothCore

/// Reads the BTHome object list (bthome.io/format) from plaintext.
enum BTHomeObjectDecoding {
    /// The objects in `bytes`, whose first byte is at service-data offset `base`; stops at
    /// the first unknown object id (returned as the second element).
    static func objects(_ bytes: ArraySlice<UInt8>, base: Int) throws(SensorDecodingError)
        -> ([BTHomeObject], SensorDecodingError?) {
        var reader = PayloadReader(bytes, base: base)
        var objects: [BTHomeObject] = []
        while !reader.isAtEnd {
            let at = reader.position
            let id = try reader.u8("object id")
            guard let type = BTHomeObjectType.type(of: id) else {
                return (objects, SensorDecodingError(.unknownObjectID(id), offset: at))
            }
            let length = type.kind == .text || type.kind == .raw ? Int(try reader.u8("\(type.property) length")) : type.length
            let dataOffset = reader.position
            let data = try reader.slice(length, type.property)
            objects.append(BTHomeObject(type: type, offset: at, value: try value(of: type, data, at: dataOffset)))
        }
        return (objects, nil)
    }

    static func value(of type: BTHomeObjectType, _ data: ArraySlice<UInt8>, at offset: Int) throws(SensorDecodingError)
        -> DecodedValue {
        let raw = hexString(data, empty: "")
        var reader = PayloadReader(data, base: offset)
        switch type.kind {
        case .sensor:
            let unsigned = try reader.uintLE(type.length, type.property)
            let integer = type.signed ? signExtend(unsigned, bytes: type.length) : Int64(unsigned)
            return DecodedValue(value: .number(DecodedNumber(integer).multiplied(by: type.factor)), unit: type.unit, hex: raw)
        case .binary:
            return DecodedValue(value: .bool(try reader.u8(type.property) != 0), hex: raw)
        case .timestamp:
            return DecodedValue(value: .integer(try reader.uintLE(4, type.property)), hex: raw)
        case .text:
            return DecodedValue(value: .string(try decodeUTF8(data, field: type.property, base: offset)), hex: raw)
        case .raw:
            return DecodedValue(value: .string(raw), hex: raw)
        case .version:
            // Sent least significant part first: F1 00 01 02 04 is 4.2.1.0.
            return DecodedValue(value: .string(data.reversed().map { String($0) }.joined(separator: ".")), hex: raw)
        case .event:
            let code = try reader.u8("\(type.property) event")
            let name: String?
            var fields = [DecodedValue.Field("event_code", .integer(code))]
            if type.id == 0x3A {
                name = buttonEvents[code] ?? "unknown"
            } else {
                name = dimmerEvents[code] ?? "unknown"
                fields.append(.init("steps", .integer(try reader.u8("dimmer steps"))))
            }
            return DecodedValue(value: name.map(FieldValue.string) ?? .null, hex: raw, fields: fields)
        }
    }

    /// Button events (0x3A); 0x00 is "no event", sent by multi-button devices for the
    /// buttons not pressed.
    static let buttonEvents: [UInt8: String?] = [
        0x00: nil, 0x01: "press", 0x02: "double_press", 0x03: "triple_press", 0x04: "long_press",
        0x05: "long_double_press", 0x06: "long_triple_press", 0x80: "hold_press",
    ]

    /// Dimmer events (0x3C), followed by a step count.
    static let dimmerEvents: [UInt8: String?] = [0x00: nil, 0x01: "rotate_left", 0x02: "rotate_right"]
}
