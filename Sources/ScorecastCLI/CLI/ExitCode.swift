/// What `scorecast` exit codes mean; documented in `--help` and docs/operations.md.
package enum ExitCode: Int32, Sendable {
    /// Success.
    case success = 0
    /// A failure not covered below (see the message).
    case failure = 1
    /// The command line is wrong: unknown command or option, missing or invalid value.
    case usage = 2
    /// The app, game, channel or key named does not exist.
    case notFound = 3
    /// APNs refused the request; its reason is printed.
    case apnsRefused = 4
    /// The database cannot be reached.
    case databaseUnavailable = 5

    /// The table printed by `--help`.
    package static let legend = """
        Exit codes: 0 success, 1 other failure, 2 usage error, 3 not found,
                    4 APNs refused (reason printed), 5 database unavailable.
        """
}

/// An error a command reports to the user: a message and the exit code it maps to.
package struct CommandError: Error, CustomStringConvertible {
    /// The exit code the process ends with.
    package let exitCode: ExitCode
    /// One or more lines for standard error.
    package let message: String

    /// Creates an error.
    package init(_ exitCode: ExitCode, _ message: String) {
        self.exitCode = exitCode
        self.message = message
    }

    /// A usage error (exit 2).
    package static func usage(_ message: String) -> CommandError { CommandError(.usage, message) }
    /// A not-found error (exit 3).
    package static func notFound(_ message: String) -> CommandError { CommandError(.notFound, message) }

    package var description: String { message }
}
