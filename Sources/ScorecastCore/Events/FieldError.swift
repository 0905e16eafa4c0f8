/// One problem with one field of an input, named by its path (`events[2].scoreboard.home`;
/// the empty path is the body itself).
public struct FieldError: Sendable, Hashable, CustomStringConvertible {
    /// Where: dotted keys and `[index]` for array elements.
    public var path: String
    /// What is wrong, in plain words; never echoes long input back.
    public var message: String

    /// Creates an error.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// The text shown in logs and error messages.
    public var description: String {
        path.isEmpty ? "body: \(message)" : "\(path): \(message)"
    }
}

/// Why an input was refused: every field problem found (up to a cap), in input order.
public struct EventValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The problems, at least one.
    public var errors: [FieldError]

    /// Creates the error.
    public init(errors: [FieldError]) {
        self.errors = errors
    }

    /// The text shown in logs and error messages.
    public var description: String {
        errors.map(\.description).joined(separator: "; ")
    }
}
