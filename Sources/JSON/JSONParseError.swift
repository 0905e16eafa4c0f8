/// Why bytes are not acceptable JSON: the byte offset where parsing stopped and what was wrong.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Zero-based byte offset into the input where the problem was found.
    public var offset: Int
    /// What was wrong, in plain words (never echoes the input).
    public var message: String

    /// Creates an error at `offset`.
    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }

    /// The text shown in logs and error messages.
    public var description: String {
        "invalid JSON at byte \(offset): \(message)"
    }
}
