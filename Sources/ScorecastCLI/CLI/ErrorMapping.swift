import Arguments
import Postgres
import Server
import ServiceBase

/// Maps errors from the layers below to what the CLI says and the exit code it ends with.
enum ErrorMapping {
    static func commandError(for error: any Error) -> CommandError {
        if let error = error as? CommandError { return error }
        if let error = error as? ArgumentError { return CommandError(.usage, error.message) }
        if let error = error as? ConfigurationError { return CommandError(.usage, error.description) }
        if let error = error as? RuntimeError { return CommandError(exitCode(error.code), error.message) }
        if let error = error as? PostgresError { return commandError(for: error) }
        return CommandError(.failure, "\(error)")
    }

    /// What a command says when the database fails it: an unmigrated schema names the fix, an
    /// unreachable server says so, anything else is a database error with the server's message.
    static func commandError(for error: PostgresError) -> CommandError {
        if UnmigratedSchema.matches(error) {
            return CommandError(.databaseUnavailable, "\(UnmigratedSchema.problem): \(UnmigratedSchema.advice)")
        }
        switch error.code {
        case .connectionFailed, .connectionClosed, .poolClosed, .timeout:
            return CommandError(.databaseUnavailable, "database unavailable: \(error.message)")
        default:
            return CommandError(.failure, "database error: \(error.message)")
        }
    }

    /// The exit code of a service that could not start.
    static func exitCode(_ code: RuntimeError.Code) -> ExitCode {
        switch code {
        case .invalidSettings: .usage
        case .databaseUnavailable: .databaseUnavailable
        case .failure: .failure
        }
    }
}
