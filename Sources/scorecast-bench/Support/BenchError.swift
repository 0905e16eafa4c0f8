/// A benchmark step that could not run: the message names the step and what went wrong.
struct BenchError: Error, CustomStringConvertible {
    /// What went wrong.
    let description: String

    /// Creates an error with a message.
    init(_ description: String) { self.description = description }
}
