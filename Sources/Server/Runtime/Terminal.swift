import Foundation
import JSON

/// Standard output and error for commands and the demo (which is why it lives in the service):
/// whole writes, so concurrent lines never interleave.
package struct Terminal: Sendable {
    /// Creates the process's terminal.
    package init() {}

    /// Writes `text` to standard output as is.
    package func print(_ text: String) { Self.write(text, to: 1) }

    /// Writes `text` and a newline to standard output.
    package func line(_ text: String) { Self.write(text + "\n", to: 1) }

    /// Writes `text` and a newline to standard error.
    package func error(_ text: String) { Self.write(text + "\n", to: 2) }

    /// Writes a value as pretty, key-sorted JSON (for `--json`).
    package func json<T: Encodable>(_ value: T) throws {
        line(String(decoding: try JSONCoding.encode(value, pretty: true), as: UTF8.self))
    }

    private static func write(_ text: String, to descriptor: Int32) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
            if written <= 0 { return }
            offset += written
        }
    }
}
