/// A command line that does not fit the command's options; the message names the option
/// (`unknown option --colour`, `--bundle-id needs a value (ID)`). Callers map it to their usage
/// error (exit code 2 for `scorecast`).
public struct ArgumentError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, in plain words.
    public let message: String

    /// Creates an error.
    public init(_ message: String) {
        self.message = message
    }

    /// A usage error with `message`.
    public static func usage(_ message: String) -> ArgumentError { ArgumentError(message) }

    /// The message.
    public var description: String { message }
}
