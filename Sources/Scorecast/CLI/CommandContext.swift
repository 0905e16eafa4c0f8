import Foundation
import Logging

/// What every command gets: the environment, the terminal, and the validated configuration.
public struct CommandContext: Sendable {
    /// The process environment (tests pass their own).
    public let environment: [String: String]
    /// Where output goes.
    public let terminal: Terminal

    /// Creates a context.
    public init(environment: [String: String], terminal: Terminal = Terminal()) {
        self.environment = environment
        self.terminal = terminal
    }

    /// The configuration, validated; an invalid variable is a usage error naming it.
    public func configuration() throws -> Configuration {
        do {
            return try Configuration.load(from: environment)
        } catch {
            throw CommandError(.usage, error.description)
        }
    }

    /// A logger configured from `SCORECAST_LOG_LEVEL` / `SCORECAST_LOG_FORMAT`.
    public func logger(_ label: String, _ configuration: Configuration) -> Logger {
        Logger(label: label, level: configuration.logLevel, format: configuration.logFormat)
    }
}
