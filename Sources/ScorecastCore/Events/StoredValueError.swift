/// A value stored by scorecast itself (game state, outbox payload, app settings) could not be
/// read back: the database holds something this version does not understand.
public struct StoredValueError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was being read (`game state`, `outbox payload`…).
    public var subject: String
    /// The field path and problem.
    public var problem: String

    /// Creates the error.
    public init(subject: String, problem: String) {
        self.subject = subject
        self.problem = problem
    }

    /// The text shown in logs and error messages.
    public var description: String { "stored \(subject) is unreadable: \(problem)" }
}
