/// Why a per-app ``ContentStateMapping`` is not usable.
public struct ContentStateMappingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Every problem, each naming the path or name at fault.
    public var problems: [String]

    /// Creates the error.
    public init(problems: [String]) {
        self.problems = problems
    }

    /// The text shown in logs and error messages.
    public var description: String {
        "content-state mapping: " + problems.joined(separator: "; ")
    }
}
