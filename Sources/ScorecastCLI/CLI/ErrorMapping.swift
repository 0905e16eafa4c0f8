import Arguments
import Scorecast

/// Maps errors from the layers below to what the CLI says and the exit code it ends with.
enum ErrorMapping {
    static func commandError(for error: any Error) -> CommandError {
        if let error = error as? CommandError { return error }
        if let error = error as? ArgumentError { return CommandError(.usage, error.message) }
        if let error = error as? ConfigurationError { return CommandError(.usage, error.description) }
        if let error = error as? RuntimeError { return CommandError(exitCode(error.code), error.message) }
        return CommandError(.failure, "\(error)")
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
