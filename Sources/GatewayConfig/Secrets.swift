extension GatewayConfiguration {
    /// The most bytes a password file may hold.
    public static let maxPasswordFileBytes = 4096

    /// The same configuration with secrets kept in files read in: `mqtt.password_file` becomes
    /// `mqtt.password`. The reader is injected so that tests (and a sandboxed caller) decide
    /// what a path yields; it gets the path and the most bytes wanted.
    ///
    /// One trailing newline is dropped, as `echo secret > file` leaves one. An unreadable,
    /// empty, oversized or non-UTF-8 file is an error at `mqtt.password_file`.
    public func resolveSecrets(readFile: (String, Int) throws(FileReadError) -> [UInt8] = SystemFile.read)
        throws(GatewayConfigError) -> GatewayConfiguration {
        guard let file = mqtt.passwordFile else { return self }
        let path = ConfigPath.root.appending("mqtt").appending("password_file")
        func fail(_ message: String) -> GatewayConfigError {
            GatewayConfigError(path: path, mark: nil, message: message)
        }
        var bytes: [UInt8]
        do {
            bytes = try readFile(file, Self.maxPasswordFileBytes + 1)
        } catch {
            throw fail("cannot read \(file): \(error.reason)")
        }
        guard bytes.count <= Self.maxPasswordFileBytes else {
            throw fail("\(file) is longer than \(Self.maxPasswordFileBytes) bytes")
        }
        if bytes.last == 0x0A { bytes.removeLast() }
        if bytes.last == 0x0D { bytes.removeLast() }
        guard !bytes.isEmpty else { throw fail("\(file) is empty") }
        guard YAMLLoader.firstInvalidUTF8(bytes) == nil, !bytes.contains(0) else {
            throw fail("\(file) is not UTF-8 text without NUL bytes")
        }
        var resolved = self
        resolved.mqtt.password = Secret(String(decoding: bytes, as: UTF8.self))
        return resolved
    }
}
