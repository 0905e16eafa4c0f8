import Arguments

/// Maps errors from the layers below to what the CLI says and the exit code it ends with.
enum ErrorMapping {
    static func commandError(for error: any Error) -> CommandError {
        if let error = error as? CommandError { return error }
        if let error = error as? ArgumentError { return CommandError(.usage, error.message) }
        if let error = error as? ConfigurationError { return CommandError(.usage, error.description) }
        return CommandError(.failure, "\(error)")
    }
}
