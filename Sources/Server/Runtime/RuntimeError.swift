/// Why the service, or a command's connection to the database or APNs, could not start. The
/// CLI maps the code to its exit code (`ErrorMapping`); the service knows nothing of exit codes.
package struct RuntimeError: Error, CustomStringConvertible {
    /// What kind of problem it is.
    package enum Code: Sendable {
        /// The settings cannot work as given (an exposed ops API without a token, unusable
        /// APNs settings, a role the command needs is not run).
        case invalidSettings
        /// The database does not answer.
        case databaseUnavailable
        /// Anything else: the HTTP port is taken, no built-in simulator is running…
        case failure
    }

    /// What kind of problem it is.
    package let code: Code
    /// What is wrong and what to do, for the operator.
    package let message: String

    /// Creates an error.
    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The message.
    package var description: String { message }
}
