/// Why a per-app ``ContentStateMapping`` is not usable.
public struct ContentStateMappingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Every problem, each naming the path or name at fault.
    public var problems: [String]

    /// Creates the error.
    public init(problems: [String]) {
        self.problems = problems
    }

    public var description: String {
        "content-state mapping: " + problems.joined(separator: "; ")
    }
}
