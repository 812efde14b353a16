import Attune

/// The central `attune serve --transport memory` runs against itself, so the command can
/// be tried and tested without a radio: it connects, reads every readable
/// characteristic, writes every writable one with the value it read, subscribes to and
/// unsubscribes from everything that notifies or indicates, and disconnects.
enum ServeExerciser {
    static func run(on radio: MemoryRadio, name: String) async throws {
        guard let link = try await BuiltInCentral.connect(on: radio, name: name) else { return }
        let (central, peripheral) = link
        for service in try await peripheral.discoverServices() {
            for c in try await peripheral.discoverCharacteristics(for: service) {
                var value: [UInt8] = []
                // ATT errors are answers worth seeing (a value needing encryption, say),
                // not failures of the exercise.
                do {
                    if c.properties.contains(.read) { value = try await peripheral.readValue(for: c) }
                    if c.properties.contains(.write) { try await peripheral.writeValue(value, for: c, type: .withResponse) }
                } catch .att(let code) {
                    Output.status("test central: \(c.uuid): ATT error \(code)")
                } catch .securityUnavailable(let why) {
                    // The value needs a more secure link than this transport can make.
                    Output.status("test central: \(c.uuid): \(why)")
                } catch .securityFailed(let why) {
                    // Pairing was tried and failed: an answer worth seeing too.
                    Output.status("test central: \(c.uuid): \(why)")
                }
                if !c.properties.isDisjoint(with: [.notify, .indicate]) {
                    try await peripheral.setNotifyValue(true, for: c)
                    try await peripheral.setNotifyValue(false, for: c)
                }
            }
        }
        await central.cancelConnection(peripheral)
    }
}
