import Foundation

/// Data goes to stdout; progress, status and errors go to stderr.
enum Output {
    static func data(_ line: String) {
        print(line)
    }

    static func status(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    static func error(_ line: String) {
        status("error: " + line)
    }
}
