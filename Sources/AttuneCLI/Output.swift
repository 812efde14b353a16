import Foundation

/// Data goes to stdout; progress, status and errors go to stderr.
enum Output {
    static func data(_ line: String) {
        print(line)
    }

    /// Data from a command that runs until stopped (serve, scan, subscribe, demo): each
    /// line leaves at once, even into a file or pipe, so nothing is lost to buffering
    /// when the command is interrupted.
    static func live(_ line: String) {
        print(line)
        fflush(nil)   // every output stream; naming stdout is not concurrency-safe in Swift 6
    }

    static func status(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    static func error(_ line: String) {
        status("error: " + line)
    }
}
